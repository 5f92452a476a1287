/**
 * `virtual-anchor/engines`: the built-in engines, for configuring them
 * (`backends.lipSync: new CanvasLipSyncEngine(new OnnxMouthAnalyzer(), { encoder: { crf: 20 } })`) or wrapping
 * them in your own. A separate entry point because importing it loads onnxruntime-node and @napi-rs/canvas:
 * the main entry does not, so a process in the `api` role never loads them.
 */
export { CanvasLipSyncEngine, type CanvasLipSyncEngineOptions } from './inference/lipsync/engine.js';
export { OnnxMouthAnalyzer, type OnnxMouthAnalyzerOptions, type MouthAnalysis } from './inference/lipsync/onnx-mouth-analyzer.js';
export { HumanFaceDetector, createFaceDetector, type HumanFaceDetectorOptions } from './inference/face/face-detector.js';
export {
  CanvasPhotoAvatarAssetRenderer,
  createPhotoAvatarAssetRenderer,
  PhotoFrameRenderer,
  type PhotoAvatarAssetRendererOptions,
  type PhotoFrameRendererOptions,
} from './inference/photo/index.js';
export {
  createVideoAvatarPreparer,
  prepareVideoAvatar,
  renderVideoAvatarJob,
  type PrepareVideoAvatarOptions,
  type RenderVideoAvatarJobOptions,
} from './inference/video/video-avatars.js';
export { VideoAvatarError } from './inference/video/errors.js';
export type { PreparedVideoFace, PrepareProgress } from './inference/video/prepare-video-face.js';
