export { RESTING_MOUTH } from './mouth.js';
export type { MouthShape, MouthTrackAnalyzer } from './mouth.js';
export { OnnxMouthAnalyzer, extractFeatures } from './onnx-mouth-analyzer.js';
export type { MouthAnalysis, OnnxMouthAnalyzerOptions } from './onnx-mouth-analyzer.js';
export { DEFAULT_VISEME_MODEL, N_VISEMES, VISEMES, VisemeModel } from './viseme-model.js';
export type { ChunkOptions, Viseme } from './viseme-model.js';
export { VISEME_SHAPES, mouthTrack, smoothedTrack, videoFrameCount } from './mouth-track.js';
export type { MouthTrackOptions } from './mouth-track.js';
export { FRAMES_PER_SECOND, LogMelExtractor, N_MELS, SAMPLE_RATE, logMel, numFrames } from './features.js';
