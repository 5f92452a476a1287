/**
 * {@link runMedia}: an ffmpeg/ffprobe command run to completion from a small child process. Starting a process
 * forks the whole caller (Node's spawn is a fork + exec): the calling thread stops for about 9 ms per 100 MB of its
 * process's memory, 15–100 ms for a host with the models loaded. From a small child, only that child waits; the
 * host's event loop does not. Code that already runs in one of this package's child processes (the engines) spawns
 * directly: its event loop is not the host's.
 */
import { inChildProcess } from '../workers/child.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';
import { reviveError } from '../workers/task-protocol.js';
import { MediaProcessError, type MediaTool } from './errors.js';
import { spawnMedia, type SpawnMediaOptions } from './process.js';
import type { MediaRunOutcome, MediaRunTask } from './run-media-task.js';

/** Options of {@link runMedia}. */
export interface RunMediaOptions extends Omit<SpawnMediaOptions, 'stdin'> {
  /** Kills the process once its stdout holds more than this many characters (default 1 MiB). */
  maxOutputChars?: number;
  /**
   * `'worker'` (default): spawned from a pooled child process (from the calling thread where that already is one of
   * this package's children); `'main'`: from the calling thread.
   */
  thread?: 'worker' | 'main';
}

/**
 * Runs `binary args` to completion and resolves with its stdout (utf-8). Rejects with a {@link MediaProcessError}
 * as {@link spawnMedia}'s `exited` does — with a `cause` only when the process could not be started (or was
 * aborted) — also when stdout grows past `maxOutputChars` (the process is killed). On abort (from a child) it
 * rejects with the signal's reason.
 */
export async function runMedia(tool: MediaTool, binary: string, args: string[], options: RunMediaOptions = {}): Promise<string> {
  const { signal, thread, ...rest } = options;
  const workers = (thread ?? 'worker') === 'worker' ? mediaPool() : undefined;
  if (!workers) return settle(await runHere({ tool, binary, args, options: rest }, signal));
  return settle(await workers.run({ tool, binary, args, options: rest }, { signal }));
}

/** Runs a {@link MediaRunTask} on this thread; never rejects (the outcome says how it ended). */
export async function runHere(task: MediaRunTask, signal?: AbortSignal): Promise<MediaRunOutcome> {
  const { maxOutputChars = 1 << 20, ...spawnOptions } = task.options;
  try {
    const proc = spawnMedia(task.tool, task.binary, task.args, { ...spawnOptions, signal });
    let stdout = '';
    proc.child.stdout?.setEncoding('utf8');
    proc.child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.length > maxOutputChars) proc.child.kill('SIGKILL');
    });
    await proc.exited;
    return { ok: true, stdout };
  } catch (error) {
    const failure = error instanceof MediaProcessError ? error : new MediaProcessError(task.tool, String(error), '', { cause: error });
    return {
      ok: false,
      tool: failure.tool,
      message: failure.message,
      stderrTail: failure.stderrTail,
      cause: failure.cause === undefined ? undefined : { name: 'Error', message: String((failure.cause as Error)?.message ?? failure.cause), ...codeOf(failure.cause) },
    };
  }
}

function codeOf(cause: unknown): { code?: string } {
  const code = (cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? { code } : {};
}

function settle(outcome: MediaRunOutcome): string {
  if (outcome.ok) return outcome.stdout;
  throw new MediaProcessError(outcome.tool, outcome.message, outcome.stderrTail, outcome.cause ? { cause: reviveError(outcome.cause) } : undefined);
}

/** Children of the host's media command pool: the ffprobe/ffmpeg runs that check inputs share them, all keys together. */
export const MEDIA_COMMAND_WORKERS = 2;

let pool: TaskPool<MediaRunTask, MediaRunOutcome> | undefined;
const MEDIA_WORKER = childModule(import.meta.url, 'run-media-worker');

/** One or two children that only start processes and collect their output: a small heap is plenty. */
function mediaPool(): TaskPool<MediaRunTask, MediaRunOutcome> | undefined {
  if (!MEDIA_WORKER || inChildProcess()) return undefined;
  return (pool ??= new TaskPool({ name: 'media command', module: MEDIA_WORKER, maxWorkers: MEDIA_COMMAND_WORKERS, maxOldGenerationSizeMb: 64 }));
}
