import type { MediaBinaries } from '../../inference/media/index.js';
import type { AvatarAssetRenderer, FaceDetector, LipSyncEngine, PhotoAvatarAssetRenderer, SeparationEngine, VideoAvatarPreparer } from '../../domain/engines.js';
import type { Logger } from '../../domain/logger.js';

/**
 * Factories of the built-in engines (lip-sync, source separation, avatar assets, for photo avatars the face
 * detector and the photo asset renderer, for video avatars the clip's preparer). Each loads its modules (onnxruntime-node, @napi-rs/canvas, TensorFlow.js
 * and the face models' worker) with a dynamic import when called, so a process that never uses one never loads it.
 * The face detector (MediaPipe BlazeFace + Face Mesh in a child process) is needed by every role that serves the API.
 */
export function builtInEngines(binaries: MediaBinaries, logger: Logger, maxSeparationSec: number): {
  lipSync: () => Promise<LipSyncEngine | undefined>;
  separation: () => Promise<SeparationEngine | undefined>;
  avatarRenderer: () => Promise<AvatarAssetRenderer | undefined>;
  faceDetector: () => Promise<FaceDetector | undefined>;
  photoRenderer: () => Promise<PhotoAvatarAssetRenderer | undefined>;
  videoPreparer: () => Promise<VideoAvatarPreparer | undefined>;
} {
  return {
    async lipSync() {
      const [{ CanvasLipSyncEngine }, { OnnxMouthAnalyzer }] = await Promise.all([
        import('../../inference/lipsync/engine.js'),
        import('../../inference/lipsync/onnx-mouth-analyzer.js'),
      ]);
      return new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries });
    },
    async separation() {
      const { OnnxSeparationEngine } = await import('../../inference/separation/engine.js');
      return new OnnxSeparationEngine({ binaries, logger, maxDurationSec: maxSeparationSec });
    },
    async avatarRenderer() {
      const { CanvasAvatarAssetRenderer } = await import('../../inference/avatar/asset-renderer.js');
      return new CanvasAvatarAssetRenderer({ binaries });
    },
    async faceDetector() {
      const { createFaceDetector } = await import('../../inference/face/face-detector.js');
      return createFaceDetector();
    },
    async photoRenderer() {
      const { createPhotoAvatarAssetRenderer } = await import('../../inference/photo/photo-asset-renderer.js');
      return createPhotoAvatarAssetRenderer({ binaries });
    },
    async videoPreparer() {
      const { createVideoAvatarPreparer } = await import('../../inference/video/video-avatars.js');
      return createVideoAvatarPreparer({ binaries });
    },
  };
}
