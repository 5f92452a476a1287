import { fileURLToPath } from 'node:url';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import type { RawVideoFormat } from '../../src/inference/media/raw-video.js';
import { EnginePriorityChild } from '../lib/engine-priority-child.js';

/** What the still-image child (still-child.ts) is asked. */
export type StillRequest =
  | { type: 'prepare'; avatar: AvatarDefinition; width: number; height: number; format: RawVideoFormat }
  | {
      type: 'encode';
      width: number;
      height: number;
      format: RawVideoFormat;
      fps: number;
      frames: number;
      audioPath: string;
      audioMaxSec: number;
      outputPath: string;
    };

const CHILD = fileURLToPath(new URL('./still-child.ts', import.meta.url));

/**
 * The encoder's limit, measured in a child process at the engines' priority (see still-child.ts): the still image
 * drawn once by {@link prepare}, encoded by each {@link encode}. Requests are answered one at a time.
 */
export class StillEncoder {
  private readonly child = new EnginePriorityChild<StillRequest>(CHILD, 'still-image');

  /** Draws the still image `format` frames are encoded from. */
  prepare(avatar: AvatarDefinition, size: { width: number; height: number }, format: RawVideoFormat): Promise<void> {
    return this.child.ask({ type: 'prepare', avatar, ...size, format });
  }

  /** Encodes the prepared still `frames` times into `outputPath`, as the job's encoder would (same settings, audio). */
  encode(request: Omit<Extract<StillRequest, { type: 'encode' }>, 'type'>): Promise<void> {
    return this.child.ask({ type: 'encode', ...request });
  }

  close(): void {
    this.child.close();
  }
}
