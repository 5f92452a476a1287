import { EventEmitter } from 'node:events';

/**
 * Announcements that a job was ended (reached a final state) or taken over by another run, heard by every process
 * that shares the job store: the process running that job stops its engine at once, instead of reading the job's
 * status back on a timer. An announcement may be lost (a process dies between its write and the announcement, the
 * broker is down): the runner's heartbeat, which finds the job no longer running, is the fallback.
 */
export interface JobEvents {
  /** Announces that job `uid` changed hands or ended. Never rejects (a lost announcement is tolerated). */
  announce(uid: string): Promise<void>;
  /** Calls `listener` with each announced uid (from this process and, for a shared backend, the others) until the returned function is called. */
  listen(listener: (uid: string) => void): () => void;
  /** Stops listening and releases connections. */
  close(): Promise<void>;
}

/** {@link JobEvents} within one process: an EventEmitter. Listeners are called on a later tick, never inside `announce`. */
export class LocalJobEvents implements JobEvents {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async announce(uid: string): Promise<void> {
    setImmediate(() => this.emitter.emit('ended', uid));
  }

  listen(listener: (uid: string) => void): () => void {
    this.emitter.on('ended', listener);
    return () => this.emitter.off('ended', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}
