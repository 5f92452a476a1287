/** Built-in speech/ambience source separation: an ONNX mask net run from TypeScript (see training/separation/). */
export { MAX_SEPARATION_SECONDS, OnnxSeparationEngine } from './engine.js';
export type { OnnxSeparationEngineOptions } from './engine.js';
export { DEFAULT_SEPARATION_MODEL, MODEL_CONTEXT, SeparationModel } from './model.js';
export type { MaskModel, SeparationModelOptions } from './model.js';
export { StreamingSeparator, concatSamples } from './separator.js';
export type { StreamingSeparatorOptions } from './separator.js';
export { BINS, HOP, MODEL_RATE, NFFT, frameCount } from './stft.js';
export { FullBandSeparator, fullBandSize } from './fullband.js';
export type { Stems } from './fullband.js';
export { StftStream } from './stft-stream.js';
