/** Messages between a {@link MediaSpawner} (media-spawner.ts) and its process (spawner-child.ts). */
import type { MediaTool } from './errors.js';

/**
 * To the spawner: start `binary args` as `spawnMedia` does (stdin a pipe, stderr's tail kept, `redact` replaced in
 * its error), or kill process `id`.
 */
export type ToSpawner =
  | { type: 'spawn'; id: number; tool: MediaTool; binary: string; args: string[]; redact?: string }
  | { type: 'kill'; id: number };

/** A process's `MediaProcessError`, as sent back: its message, stderr tail, and why it could not start (if so). */
export interface SpawnFailure {
  message: string;
  stderrTail: string;
  cause?: { message: string; code?: string };
}

/**
 * From the spawner: process `id` runs (its stdin's writing end comes with the message, as a handle), or it ended:
 * with 0, or with `failure`.
 */
export type FromSpawner = { type: 'spawned'; id: number; pid: number } | { type: 'exit'; id: number; failure?: SpawnFailure };
