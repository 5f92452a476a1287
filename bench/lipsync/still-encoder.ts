import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import type { RawVideoFormat } from '../../src/inference/media/raw-video.js';

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
  private readonly child: ChildProcess;
  private readonly started: Promise<void>;

  constructor() {
    this.child = fork(CHILD, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.started = this.answer();
  }

  /** Draws the still image `format` frames are encoded from. */
  async prepare(avatar: AvatarDefinition, size: { width: number; height: number }, format: RawVideoFormat): Promise<void> {
    await this.started;
    return this.ask({ type: 'prepare', avatar, ...size, format });
  }

  /** Encodes the prepared still `frames` times into `outputPath`, as the job's encoder would (same settings, audio). */
  async encode(request: Omit<Extract<StillRequest, { type: 'encode' }>, 'type'>): Promise<void> {
    await this.started;
    return this.ask({ type: 'encode', ...request });
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private ask(request: StillRequest): Promise<void> {
    const answer = this.answer();
    this.child.send(request);
    return answer;
  }

  private answer(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`still-image process exited with code ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (message: { ok: true } | { error: string }) => {
        this.child.off('exit', onExit);
        if ('error' in message) reject(new Error(message.error));
        else resolve();
      });
    });
  }
}
