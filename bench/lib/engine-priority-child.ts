import { fork, type ChildProcess } from 'node:child_process';
import { lowerSessionPriority, lowerThreadPriority } from '../../src/inference/workers/background-priority.js';

/**
 * A bench's baseline run in a child process at the engines' priority (nice 10, see background-priority.ts), so that a
 * job and its baseline get the same share of a machine that other work loads: at nice 0 in the bench's own process the
 * baseline's ffmpeg outweighs the job's by 1024 to 110 against that work. The child module calls
 * {@link serveAtEnginePriority}; requests are answered one at a time, in order.
 */
export class EnginePriorityChild<Request> {
  private readonly child: ChildProcess;
  private readonly started: Promise<void>;

  constructor(
    modulePath: string,
    private readonly what: string,
  ) {
    // Its own session and scheduling group, lowered like the engines' children (see startChild): on a kernel that
    // groups processes by session, a baseline in the bench's group would weigh as much as the whole bench.
    this.child = fork(modulePath, {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      detached: process.platform !== 'win32',
    });
    if (this.child.pid !== undefined) lowerSessionPriority(this.child.pid);
    this.started = this.answer();
  }

  /** Sends `request` once the child is up; resolves when it has been carried out, rejects with the child's error. */
  async ask(request: Request): Promise<void> {
    await this.started;
    const answer = this.answer();
    this.child.send(request as object);
    return answer;
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private answer(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${this.what} process exited with code ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (message: { ok: true } | { error: string }) => {
        this.child.off('exit', onExit);
        if ('error' in message) reject(new Error(message.error));
        else resolve();
      });
    });
  }
}

/** The child's side of {@link EnginePriorityChild}: lowers this process's priority, then carries out each request. */
export function serveAtEnginePriority<Request>(handle: (request: Request) => Promise<void>): void {
  lowerThreadPriority();
  process.on('message', (request: Request) => {
    handle(request).then(
      () => process.send!({ ok: true }),
      (error: unknown) => process.send!({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.send!({ ok: true });
}
