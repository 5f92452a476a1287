import type { FaceDetector, PhotoAvatarAssetRenderer } from '../../domain/engines.js';
import type { MediaBinaries } from '../../inference/media/index.js';

/**
 * Factories of the built-in photo avatar engines: the face detector (`src/inference/face`: MediaPipe BlazeFace +
 * Face Mesh on a worker thread, needed by every role that serves the API) and the photo asset renderer
 * (`src/inference/photo`, processes that run engines). Like {@link builtInEngines}, each loads its modules with a
 * dynamic import when called, so a process that never uses them never loads TensorFlow.js.
 */
export function builtInPhotoEngines(binaries: MediaBinaries): {
  faceDetector: () => Promise<FaceDetector | undefined>;
  photoRenderer: () => Promise<PhotoAvatarAssetRenderer | undefined>;
} {
  return {
    async faceDetector() {
      const { createFaceDetector } = await import('../../inference/face/face-detector.js');
      return createFaceDetector();
    },
    async photoRenderer() {
      const { createPhotoAvatarAssetRenderer } = await import('../../inference/photo/index.js');
      return createPhotoAvatarAssetRenderer({ binaries });
    },
  };
}
