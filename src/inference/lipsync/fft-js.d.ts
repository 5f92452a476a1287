// Ambient types for fft.js 4 (the package ships none). Only what the lip-sync features use.
declare module 'fft.js' {
  export default class FFT {
    constructor(size: number);
    readonly size: number;
    /** Interleaved complex array of length 2*size. */
    createComplexArray(): number[];
    /** Real-input FFT; fills `out[0 .. size]` (bins 0 .. size/2 - 1, interleaved re/im). */
    realTransform(out: ArrayLike<number> & { [i: number]: number }, data: ArrayLike<number>): void;
    completeSpectrum(out: ArrayLike<number> & { [i: number]: number }): void;
    transform(out: ArrayLike<number> & { [i: number]: number }, data: ArrayLike<number>): void;
    inverseTransform(out: ArrayLike<number> & { [i: number]: number }, data: ArrayLike<number>): void;
  }
}
