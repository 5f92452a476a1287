import type { MediaBinaries } from '../../inference/media/index.js';
import type { AvatarAssetRenderer, FaceDetector, LipSyncEngine, SeparationEngine } from '../../domain/engines.js';
import type { Logger } from '../../domain/logger.js';

/**
 * Factories of the built-in engines (lip-sync, source separation, avatar assets, face detection). Each loads its
 * modules (onnxruntime-node, @napi-rs/canvas, the face models' worker) with a dynamic import when called, so a process that runs no engine
 * (role `api`) never loads them.
 */
export function builtInEngines(binaries: MediaBinaries, logger: Logger, maxSeparationSec: number): {
  lipSync: () => Promise<LipSyncEngine | undefined>;
  separation: () => Promise<SeparationEngine | undefined>;
  avatarRenderer: () => Promise<AvatarAssetRenderer | undefined>;
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
  };
}
