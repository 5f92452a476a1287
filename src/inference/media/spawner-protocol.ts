/** Messages between a {@link MediaSpawner} (media-spawner.ts) and its process (spawner-child.ts). */
import type { MediaTool } from './errors.js';

/** To the spawner: start `binary args` (stdin a pipe, stdout ignored, stderr kept), or kill process `id`. */
export type ToSpawner =
  | { type: 'spawn'; id: number; tool: MediaTool; binary: string; args: string[] }
  | { type: 'kill'; id: number };

/**
 * From the spawner: process `id` runs (its stdin's writing end comes with the message, as a handle), or it ended:
 * its exit code or signal, the tail of its stderr, and why it could not start (`error`), if it could not.
 */
export type FromSpawner =
  | { type: 'spawned'; id: number; pid: number }
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null; stderr: string; error?: { message: string; code?: string } };
