import type { MediaBinaries } from '../../inference/media/index.js';
import type { AvatarAssetRenderer, LipSyncEngine, SeparationEngine } from '../../inference/engines.js';
import { CanvasAvatarAssetRenderer } from '../../inference/avatar/asset-renderer.js';
import { CanvasLipSyncEngine } from '../../inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../../inference/lipsync/onnx-mouth-analyzer.js';
import { OnnxSeparationEngine } from '../../inference/separation/engine.js';
import type { Logger } from '../logger.js';

/** Factories of the built-in engines (lip-sync, source separation, avatar assets). */
export function builtInEngines(binaries: MediaBinaries, logger: Logger, maxSeparationSec: number): {
  lipSync: () => LipSyncEngine | undefined;
  separation: () => SeparationEngine | undefined;
  avatarRenderer: () => AvatarAssetRenderer | undefined;
} {
  return {
    lipSync: () => new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries }),
    separation: () => new OnnxSeparationEngine({ binaries, logger, maxDurationSec: maxSeparationSec }),
    avatarRenderer: () => new CanvasAvatarAssetRenderer({ binaries }),
  };
}
