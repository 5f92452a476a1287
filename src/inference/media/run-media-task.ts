import type { MediaTool } from './errors.js';
import type { SerializedError } from '../workers/task-protocol.js';
import type { SpawnMediaOptions } from './process.js';

/** One command for the media worker (see `runMedia`). */
export interface MediaRunTask {
  tool: MediaTool;
  binary: string;
  args: string[];
  options: Omit<SpawnMediaOptions, 'stdin' | 'signal'> & { maxOutputChars?: number };
}

/** How a command ended: its stdout, or the parts of its `MediaProcessError`. */
export type MediaRunOutcome =
  | { ok: true; stdout: string }
  | { ok: false; tool: MediaTool; message: string; stderrTail: string; cause?: SerializedError };
