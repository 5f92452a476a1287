/**
 * The process doing an engine's work ended before finishing it: killed by a signal (a segfault in native code, the
 * kernel's OOM killer, SIGKILL) or exited, without reporting an error of its own. Unlike an error the engine
 * reports, this says nothing about the input: with a queue that retries, the job is handed on as a dead worker's
 * job is (see the job runner), until its last attempt.
 */
export class EngineCrashError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineCrashError';
  }
}

/** Whether `error`, or an error in its `cause` chain (an engine may wrap it), is an {@link EngineCrashError}. */
export function isEngineCrash(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 8; at = at.cause, depth++) {
    if (at.name === 'EngineCrashError') return true;
  }
  return false;
}
