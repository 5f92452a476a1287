/**
 * {@link MediaSpawner}: media processes that take their input on stdin (ffmpeg encoding a video's frames), started
 * from a small child process of the caller's own (spawner-child.ts) instead of by the caller. Node starts a process
 * by forking the caller, which for a frame child (canvas arenas, a ring of frames, its heap: 200 MB and more) cost
 * 20–30 ms a video, and then a fault for every page it wrote afterwards (copy on write: ~2 000 for a 1280×720 frame
 * ring alone, ~11 µs each on a 2-vCPU VM). The spawner is forked once, small; it sends each process's stdin back
 * (its writing end, as a handle over the IPC channel), so the frames still go straight from the caller to ffmpeg.
 */
import type { ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { fork } from 'node:child_process';
import { childModule } from '../workers/child-module.js';
import { MediaProcessError, type MediaTool } from './errors.js';
import { spawnMedia, type SpawnMediaOptions } from './process.js';
import type { FromSpawner, ToSpawner } from './spawner-protocol.js';

/** A started media process that reads its input from stdin. */
export interface StdinProcess {
  /** Its stdin once it runs; `undefined` when it could not be started (then {@link exited} says why). */
  readonly stdin: Promise<Writable | undefined>;
  /** Settles once it has exited; rejects with a `MediaProcessError` unless it exited with 0. */
  readonly exited: Promise<void>;
  /** Kills it (SIGKILL); {@link exited} then rejects. */
  kill(): void;
}

/** A started media process whose output is read from it (see {@link MediaSpawner.spawnWithOutputOnStdin}). */
export interface StdoutProcess {
  /** Its output once it runs; `undefined` when it could not be started (then {@link exited} says why). */
  readonly stdout: Promise<Readable | undefined>;
  /** Settles once it has exited; rejects with a `MediaProcessError` unless it exited with 0. */
  readonly exited: Promise<void>;
  /** Kills it (SIGKILL) if it still runs; {@link exited} then rejects. */
  kill(): void;
}

/** Options of {@link MediaSpawner.spawn}: as `spawnMedia`'s, stdin always a pipe. */
export type StdinProcessOptions = Pick<SpawnMediaOptions, 'signal' | 'redact'>;

/** `binary args` spawned by the calling process itself (`spawnMedia`), as a {@link StdinProcess}. */
export function spawnStdinProcess(tool: MediaTool, binary: string, args: string[], options: StdinProcessOptions = {}): StdinProcess {
  const { child, exited } = spawnMedia(tool, binary, args, { ...options, stdin: true });
  // EPIPE when the process exits early; its exit status tells the real story.
  child.stdin?.on('error', () => undefined);
  return { stdin: Promise.resolve(child.stdin ?? undefined), exited, kill: () => child.kill('SIGKILL') };
}

/** A process the spawner was asked for, until its exit is known. */
interface Pending {
  /** The spawner process asked. */
  owner: ChildProcess;
  tool: MediaTool;
  pid?: number;
  stdinReady(stdin: Writable | undefined): void;
  settle(exit: Extract<FromSpawner, { type: 'exit' }>): void;
  fail(error: Error): void;
}

/** The module of the spawner's process; undefined where this package was bundled into one file. */
const SPAWNER_MODULE = childModule(import.meta.url, 'spawner-child');

/**
 * Starts {@link StdinProcess}es from a small child process (see the module's comment). The child starts with the
 * first {@link spawn} (or {@link start}) and serves every later one; it ends with {@link close}, or when this process
 * ends (it then kills what it started). Should it die, the processes it had started are killed and fail, and the next
 * {@link spawn} starts a new one. Where its module cannot be found (a bundle), processes are spawned from here.
 */
export class MediaSpawner {
  private child: ChildProcess | undefined;
  private lastId = 0;
  private readonly pending = new Map<number, Pending>();

  /** The spawner's process id while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the spawner's process now, while this process is small (a fork's cost grows with the caller's memory). */
  start(): void {
    this.process();
  }

  /** Starts `binary args` with its stdin a pipe to this process, from the spawner's process. */
  spawn(tool: MediaTool, binary: string, args: string[], options: StdinProcessOptions = {}): StdinProcess {
    const child = this.process();
    if (!child) return spawnStdinProcess(tool, binary, args, options);
    const id = ++this.lastId;
    let stdinReady!: (stdin: Writable | undefined) => void;
    const stdin = new Promise<Writable | undefined>((resolve) => (stdinReady = resolve));
    let resolveExit!: () => void;
    let rejectExit!: (error: Error) => void;
    const exited = new Promise<void>((resolve, reject) => {
      resolveExit = resolve;
      rejectExit = reject;
    });
    const onAbort = () => kill();
    const done = () => {
      this.pending.delete(id);
      options.signal?.removeEventListener('abort', onAbort);
      stdinReady(undefined);
      this.hold();
    };
    const pending: Pending = {
      owner: child,
      tool,
      stdinReady,
      settle: ({ failure }) => {
        done();
        if (!failure) return resolveExit();
        const cause = failure.cause && Object.assign(new Error(failure.cause.message), { code: failure.cause.code });
        rejectExit(new MediaProcessError(tool, failure.message, failure.stderrTail, { cause }));
      },
      fail: (error) => {
        done();
        rejectExit(error);
      },
    };
    const kill = () => {
      if (!this.pending.has(id)) return;
      if (!this.post({ type: 'kill', id }) && pending.pid !== undefined) killPid(pending.pid);
    };
    this.pending.set(id, pending);
    this.hold();
    if (!this.post({ type: 'spawn', id, tool, binary, args, redact: options.redact })) pending.fail(new MediaProcessError(tool, `${tool} failed: the media spawner is not running`, ''));
    else if (options.signal?.aborted) kill();
    else options.signal?.addEventListener('abort', onAbort, { once: true });
    return { stdin, exited, kill };
  }

  /**
   * Starts `binary args`, whose output is its **stdin**, from the spawner's process: the arguments write the output
   * to `pipe:0` (ffmpeg). Node's stdio pipe is a socket pair, which carries data both ways; the spawner never reads
   * its end and hands it back, so the output is read here ({@link StdoutProcess.stdout}) and nothing is lost on the
   * way (a stdout handed back could be: Node starts reading a child's stdout as soon as it starts).
   */
  spawnWithOutputOnStdin(tool: MediaTool, binary: string, args: string[], options: StdinProcessOptions = {}): StdoutProcess {
    const proc = this.spawn(tool, binary, args, options);
    return { stdout: proc.stdin as Promise<(Writable & Readable) | undefined>, exited: proc.exited, kill: proc.kill };
  }

  /** Ends the spawner's process and kills what it started. */
  close(): void {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    child.kill('SIGKILL');
    this.lost(child, 'the media spawner was closed');
  }

  /** The spawner's process, started if need be (again, once one has gone); none where its module is missing. */
  private process(): ChildProcess | undefined {
    if (this.child?.connected) return this.child;
    if (this.child) {
      // Gone, going, or never started: what it had started fails (its exit, if it comes, then finds nothing).
      const old = this.child;
      this.child = undefined;
      old.kill('SIGKILL');
      this.lost(old, 'the media spawner is not running');
    }
    if (!SPAWNER_MODULE) return undefined;
    const child = fork(SPAWNER_MODULE.path, [], { execArgv: SPAWNER_MODULE.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.on('message', (message: FromSpawner, handle: unknown) => {
      const pending = this.pending.get(message.id);
      if (message.type === 'spawned') {
        const stdin = handle as Writable | undefined;
        stdin?.on('error', () => undefined);
        if (!pending) {
          stdin?.destroy();
          return;
        }
        pending.pid = message.pid;
        pending.stdinReady(stdin);
      } else {
        pending?.settle(message);
      }
    });
    child.on('error', () => undefined);
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      this.lost(child, signal ? `the media spawner was killed by ${signal}` : `the media spawner exited (code ${code})`);
    });
    this.child = child;
    this.hold();
    return child;
  }

  /** Spawner process `owner` is gone: what it had started is killed, and fails with `why`. */
  private lost(owner: ChildProcess, why: string): void {
    for (const pending of [...this.pending.values()]) {
      if (pending.owner !== owner) continue;
      if (pending.pid !== undefined) killPid(pending.pid);
      pending.fail(new MediaProcessError(pending.tool, `${pending.tool} failed: ${why}`, ''));
    }
  }

  /** Sends `message` to the spawner; false when its channel is closed. */
  private post(message: ToSpawner): boolean {
    const child = this.child;
    if (!child?.connected) return false;
    try {
      return child.send(message, () => undefined);
    } catch {
      return false;
    }
  }

  /** Keeps this process alive while a process of the spawner runs; lets it exit while the spawner idles. */
  private hold(): void {
    const child = this.child;
    if (!child) return;
    if (this.pending.size > 0) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ESRCH: it has exited already.
  }
}
