import { randomBytes } from 'node:crypto';
import { copyFile, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type {
  AvatarAssetRenderer,
  EngineContext,
  LipSyncEngine,
  LipSyncInput,
  SeparationEngine,
  SeparationInput,
  SeparationOutput,
} from '../../src/domain/engines.js';
import { ffmpeg, fixtures } from './media.js';

/** Settles (never resolves) when `signal` aborts, so a held run still honours an abort. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** How an engine double behaves on its next runs; change it between tests. */
export interface EngineBehaviour {
  /** Wait this long before working (abortable). */
  delayMs?: number;
  /** Throw an Error with this message instead of producing output. */
  failWith?: string;
}

/**
 * What the engine doubles share: call counting, optional delay/failure, and a gate that holds
 * every run until the test opens it (to act on a job while it is `ongoing`).
 */
abstract class EngineDouble {
  /** Runs started. */
  calls = 0;
  /** Runs that ended (resolved or rejected). */
  ended = 0;
  private gate?: { opened: Promise<void>; open: () => void };
  private readonly waiters = new Set<() => void>();

  constructor(public behaviour: EngineBehaviour = {}) {}

  /** Holds runs that start from now on until the returned function is called. */
  hold(): () => void {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    this.gate = { opened, open };
    return () => {
      this.gate = undefined;
      open();
    };
  }

  /** Resolves once `count` runs in total have started. */
  started(count: number): Promise<void> {
    return this.until(() => this.calls >= count);
  }

  /** Resolves once `count` runs in total have ended. */
  finished(count: number): Promise<void> {
    return this.until(() => this.ended >= count);
  }

  protected async run(context: EngineContext, work: () => Promise<void>): Promise<void> {
    this.calls++;
    this.notify();
    try {
      if (this.gate) await Promise.race([this.gate.opened, aborted(context.signal)]);
      context.signal.throwIfAborted();
      const { delayMs, failWith } = this.behaviour;
      if (delayMs) await sleep(delayMs, undefined, { signal: context.signal });
      context.signal.throwIfAborted();
      if (failWith) throw new Error(failWith);
      context.onProgress({ done: 0, total: 1, unit: 'files' });
      await work();
      context.onProgress({ done: 1, total: 1, unit: 'files' });
    } finally {
      this.ended++;
      this.notify();
    }
  }

  private until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = () => {
        if (!check()) return;
        this.waiters.delete(waiter);
        resolve();
      };
      this.waiters.add(waiter);
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

/** A {@link LipSyncEngine} writing a real, small mp4 (grey 64×64 at 10 fps, H.264 + AAC of the input audio). */
export class FakeLipSyncEngine extends EngineDouble implements LipSyncEngine {
  /** Inputs of every run, in order. */
  readonly inputs: LipSyncInput[] = [];

  render(input: LipSyncInput, context: EngineContext): Promise<void> {
    this.inputs.push(input);
    const seconds = Math.max(0.2, input.durationSec).toFixed(2);
    return this.run(context, () =>
      ffmpeg(
        [
          '-f', 'lavfi', '-i', `color=c=gray:s=64x64:r=10:d=${seconds}`,
          '-i', input.audioPath,
          '-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p',
          '-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart', '-f', 'mp4', input.outputPath,
        ],
        context.signal,
      ),
    );
  }
}

/** A {@link SeparationEngine} writing two wav files: the decoded input as speech, silence as ambience. */
export class FakeSeparationEngine extends EngineDouble implements SeparationEngine {
  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    const seconds = Math.max(0.2, input.durationSec).toFixed(2);
    const wav = ['-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav'];
    await this.run(context, async () => {
      await ffmpeg(['-i', input.audioPath, '-vn', ...wav, input.speechPath], context.signal);
      await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=sample_rate=16000:channel_layout=mono', '-t', seconds, ...wav, input.ambiencePath], context.signal);
    });
    return { contentType: 'audio/wav', extension: 'wav' };
  }
}

/** An {@link AvatarAssetRenderer} that copies a small png and mp4 made once, so catalogue start-up costs nothing. */
export class FakeAvatarRenderer implements AvatarAssetRenderer {
  calls = 0;

  async renderIdleVideo(_avatar: unknown, outputPath: string): Promise<void> {
    this.calls++;
    await copyFile((await fixtures()).path('clip.mp4'), outputPath);
  }

  async renderPreview(_avatar: unknown, outputPath: string): Promise<void> {
    this.calls++;
    await copyFile((await fixtures()).path('image.png'), outputPath);
  }

  async renderThumbnail(_avatar: unknown, outputPath: string): Promise<void> {
    this.calls++;
    await copyFile((await fixtures()).path('image.png'), outputPath);
  }
}

/** A {@link LipSyncEngine} that resolves without writing anything (a broken custom engine). */
export class SilentLipSyncEngine extends EngineDouble implements LipSyncEngine {
  render(_input: LipSyncInput, context: EngineContext): Promise<void> {
    return this.run(context, async () => undefined);
  }
}

/** A {@link SeparationEngine} that resolves without writing its stems. */
export class SilentSeparationEngine extends EngineDouble implements SeparationEngine {
  async separate(_input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    await this.run(context, async () => undefined);
    return { contentType: 'audio/wav', extension: 'wav' };
  }
}

/** A {@link LipSyncEngine} that writes random bytes where the mp4 belongs. */
export class GarbageLipSyncEngine extends EngineDouble implements LipSyncEngine {
  render(input: LipSyncInput, context: EngineContext): Promise<void> {
    return this.run(context, () => writeFile(input.outputPath, randomBytes(4096)));
  }
}

/** A {@link SeparationEngine} whose speech stem is real audio and whose ambience stem is text. */
export class GarbageSeparationEngine extends EngineDouble implements SeparationEngine {
  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    await this.run(context, async () => {
      await ffmpeg(['-i', input.audioPath, '-vn', '-ac', '1', '-c:a', 'pcm_s16le', '-f', 'wav', input.speechPath], context.signal);
      await writeFile(input.ambiencePath, 'this is not audio\n'.repeat(100));
    });
    return { contentType: 'audio/wav', extension: 'wav' };
  }
}

/**
 * A {@link LipSyncEngine} that never settles and ignores its abort signal (a hung custom engine), for its
 * first `hangs` runs; later runs behave like {@link FakeLipSyncEngine}. Keeps every run's signal.
 */
export class HangingLipSyncEngine extends FakeLipSyncEngine {
  /** The signal of every run, in order. */
  readonly signals: AbortSignal[] = [];

  constructor(private readonly hangs = Number.POSITIVE_INFINITY) {
    super();
  }

  override render(input: LipSyncInput, context: EngineContext): Promise<void> {
    this.signals.push(context.signal);
    if (this.signals.length > this.hangs) return super.render(input, context);
    return this.run(context, () => new Promise<void>(() => undefined));
  }
}

/**
 * A meeting point for several parties: {@link Rendezvous.meet} returns once `parties` callers have met
 * under the same key, or after `timeoutMs` (so a party that never comes delays, never blocks).
 */
export class Rendezvous {
  /** Keys at which every party met (a real race took place there). */
  readonly met = new Set<string>();
  private readonly spots = new Map<string, { count: number; all: Promise<void>; release: () => void }>();

  constructor(
    private readonly parties: number,
    private readonly timeoutMs: number,
  ) {}

  async meet(key: string): Promise<void> {
    let spot = this.spots.get(key);
    if (!spot) {
      let release!: () => void;
      const all = new Promise<void>((resolve) => (release = resolve));
      spot = { count: 0, all, release };
      this.spots.set(key, spot);
    }
    spot.count++;
    if (spot.count === this.parties) {
      this.met.add(key);
      spot.release();
    }
    await Promise.race([spot.all, sleep(this.timeoutMs, undefined, { ref: false })]);
  }
}

/**
 * A {@link FakeAvatarRenderer} whose renders of one asset of one avatar wait for the other instances'
 * renderers at a shared {@link Rendezvous}, so instances started together store the same asset at once.
 */
export class RacingAvatarRenderer extends FakeAvatarRenderer {
  constructor(private readonly rendezvous: Rendezvous) {
    super();
  }

  override async renderIdleVideo(avatar: { id: string }, outputPath: string): Promise<void> {
    await this.rendezvous.meet(`${avatar.id}:video`);
    await super.renderIdleVideo(avatar, outputPath);
  }

  override async renderPreview(avatar: { id: string }, outputPath: string): Promise<void> {
    await this.rendezvous.meet(`${avatar.id}:preview`);
    await super.renderPreview(avatar, outputPath);
  }

  override async renderThumbnail(avatar: { id: string }, outputPath: string): Promise<void> {
    await this.rendezvous.meet(`${avatar.id}:thumbnail`);
    await super.renderThumbnail(avatar, outputPath);
  }
}

/**
 * A {@link FakeAvatarRenderer} that holds start-up rendering as a slow real renderer does: each avatar's idle video
 * waits until the test calls {@link HeldAvatarRenderer.release} with its name (or the render is aborted), and the
 * thumbnail of an avatar named in `failing` throws.
 */
export class HeldAvatarRenderer extends FakeAvatarRenderer {
  /** The name of the avatar whose idle video waits now, if any. */
  holding?: string;
  private readonly released = new Map<string, () => void>();
  private readonly gates = new Map<string, Promise<void>>();

  constructor(private readonly failing: readonly string[] = []) {
    super();
  }

  /** Lets the idle video of the avatar named `name` finish (before or while it waits). */
  release(name: string): void {
    this.gate(name);
    this.released.get(name)!();
  }

  override async renderIdleVideo(avatar: { name: string }, outputPath: string, signal?: AbortSignal): Promise<void> {
    this.holding = avatar.name;
    try {
      await (signal ? Promise.race([this.gate(avatar.name), aborted(signal)]) : this.gate(avatar.name));
    } finally {
      this.holding = undefined;
    }
    await super.renderIdleVideo(avatar, outputPath);
  }

  override async renderThumbnail(avatar: { name: string }, outputPath: string): Promise<void> {
    if (this.failing.includes(avatar.name)) throw new Error(`test renderer: ${avatar.name} cannot be drawn`);
    await super.renderThumbnail(avatar, outputPath);
  }

  private gate(name: string): Promise<void> {
    let gate = this.gates.get(name);
    if (!gate) {
      gate = new Promise<void>((resolve) => this.released.set(name, resolve));
      this.gates.set(name, gate);
    }
    return gate;
  }
}
