/**
 * Full-band figures of the separation bench (44.1 kHz, as the engine runs): the share of a clean voice's 8–16 kHz
 * energy that ends in the speech stem, and the speech stem's energy on songs and music without speech.
 */
import { FullBandSeparator, MODEL_RATE, type SeparationModel, concatSamples } from '../src/inference/separation/index.js';
import { FrameTransform } from '../src/inference/separation/stft.js';

export const FULL_RATE = 44100;

/** Speech stem of mono `x` at `rate`, with `low` the same audio at 16 kHz (as the engine's two decodes). */
export async function fullBandSpeech(model: SeparationModel, x: Float32Array, low: Float32Array, rate = FULL_RATE): Promise<Float32Array> {
  const sep = new FullBandSeparator(model, 1, rate);
  const out: Float32Array[] = [];
  const step = rate; // one second per push
  let li = 0;
  for (let i = 0; i < x.length; i += step) {
    sep.pushNative(x.subarray(i, i + step));
    while (sep.needsLow() && li < low.length) {
      await sep.pushLow(low.subarray(li, li + MODEL_RATE));
      li += MODEL_RATE;
    }
    out.push(sep.take().speech);
  }
  if (li < low.length) await sep.pushLow(low.subarray(li));
  await sep.finishLow();
  sep.finishNative();
  out.push(sep.take().speech);
  return concatSamples(out);
}

/** Energy of `x` between `lo` and `hi` Hz (sqrt-Hann 1024-point frames at 50 % overlap). */
export function bandEnergy(x: Float32Array, rate: number, lo: number, hi: number): number {
  const ft = new FrameTransform(1024);
  const spec = new Float32Array(2 * ft.bins);
  const k0 = Math.ceil((lo * 1024) / rate);
  const k1 = Math.min(ft.bins, Math.ceil((hi * 1024) / rate));
  let e = 0;
  for (let off = 0; off + 1024 <= x.length; off += 512) {
    ft.analyze(x, off, 1, 0, spec);
    for (let k = k0; k < k1; k++) e += spec[2 * k] ** 2 + spec[2 * k + 1] ** 2;
  }
  return e;
}

export const energyDb = (part: Float32Array, whole: Float32Array): number => {
  let p = 0;
  let w = 0;
  for (let i = 0; i < whole.length; i++) {
    p += part[i] * part[i];
    w += whole[i] * whole[i];
  }
  return 10 * Math.log10((p + 1e-20) / (w + 1e-20));
};
