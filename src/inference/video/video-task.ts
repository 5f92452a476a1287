import type { VideoFace } from '../../domain/avatar/video-face.js';
import type { MouthShape } from '../lipsync/mouth.js';
import type { MediaBinaries } from '../media/binaries.js';
import type { VideoEncoderSettings } from '../media/encode-video.js';
import type { PrepareProgress } from './prepare-video-face.js';

/** Work sent to the video avatar child (plain data: it crosses the process boundary). */
export type VideoTask =
  | {
      kind: 'prepare';
      clipPath: string;
      outputDir: string;
      binaries: MediaBinaries;
      minSeconds?: number;
      maxSeconds?: number;
      maxLostShare?: number;
      encoder?: VideoEncoderSettings;
    }
  | {
      kind: 'render';
      face: VideoFace;
      mouths: readonly MouthShape[];
      total: number;
      outputSize?: { width: number; height: number };
      audioPath?: string;
      audioMaxSec?: number;
      outputPath: string;
      encoder?: VideoEncoderSettings;
      binaries: MediaBinaries;
    };

/** What the child tells while it works: the preparation's stages, or frames encoded. */
export type VideoTaskEvent = { kind: 'prepare'; progress: PrepareProgress } | { kind: 'render'; done: number };
