import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadOptions, LoadResult } from './load.js';

const WORKER = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

/** A load generator in its own process (see `load-worker.ts`), reused for every run; loads TypeScript through tsx. */
export class LoadProcess {
  private readonly child: ChildProcess;
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    this.child = fork(WORKER, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }

  /** Runs one load; runs are serialised. */
  run(options: LoadOptions): Promise<LoadResult> {
    const next = this.queue.then(
      () =>
        new Promise<LoadResult>((resolve, reject) => {
          const onExit = (code: number | null) => reject(new Error(`load process exited with code ${code}`));
          this.child.once('exit', onExit);
          this.child.once('message', (message: LoadResult | { error: string }) => {
            this.child.off('exit', onExit);
            if ('error' in message) reject(new Error(message.error));
            else resolve(message);
          });
          this.child.send(options);
        }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}
