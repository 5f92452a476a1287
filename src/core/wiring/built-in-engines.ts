import type { MediaBinaries } from '../../inference/media/index.js';
import type { AvatarAssetRenderer, LipSyncEngine, SeparationEngine } from '../../inference/engines.js';
import { CanvasAvatarAssetRenderer } from '../../inference/avatar/asset-renderer.js';
import { CanvasLipSyncEngine } from '../../inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../../inference/lipsync/onnx-mouth-analyzer.js';

/** Factories of the built-in engines; `undefined` where the package has none (the job then ends in `error`). */
export function builtInEngines(binaries: MediaBinaries): {
  lipSync: () => LipSyncEngine | undefined;
  separation: () => SeparationEngine | undefined;
  avatarRenderer: () => AvatarAssetRenderer | undefined;
} {
  return {
    lipSync: () => new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries }),
    separation: () => undefined,
    avatarRenderer: () => new CanvasAvatarAssetRenderer({ binaries }),
  };
}
