/**
 * Engine children started by a small process of the host's own instead of by the host (see launcher-child.ts).
 * `child_process.fork` forks the calling process, copying its page tables: the host's event loop stopped 9–15 ms per
 * child at 275 MiB and 30–49 ms at 1 GiB (2-vCPU VM), at its first jobs and after each pool's idle timeout. The
 * {@link ChildLauncher} is forked once and stays small (it loads nothing but this folder's protocol); it forks the
 * children, and their messages travel through it both ways ({@link RelayedChild} stands for a child on the host's
 * side, with the part of `ChildProcess` the pools use). */
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { forkOptions, type ChildModule } from './child-module.js';
import type { FromLauncher, ToLauncher } from './launcher-protocol.js';
import { reviveError } from './task-protocol.js';

/** A child forked by the {@link ChildLauncher}: on the host's side, what the pools use of a `ChildProcess`. */
export class RelayedChild extends EventEmitter {
  /** Its process id once the launcher has forked it. */
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  /** Asked for and neither running nor ended yet (its `pid` is not known yet). */
  starting = true;
  /** Whether it keeps the host alive (see `holdChild`): a new child does, as a `ChildProcess` does. */
  private held = true;
  private ended = false;

  constructor(
    private readonly launcher: ChildLauncher,
    readonly id: number,
  ) {
    super();
  }

  /** Whether messages can still reach it. */
  get connected(): boolean {
    return !this.ended && this.launcher.connected;
  }

  /** Sends `message` to the child through the launcher; false once it cannot reach it. */
  send(message: unknown, callback: (error: Error | null) => void): boolean {
    if (!this.connected) return false;
    return this.launcher.post({ type: 'send', id: this.id, message }, callback);
  }

  /** Sends `signal` (default SIGTERM; SIGKILL also kills its process group). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.ended) return false;
    if (this.pid !== undefined) {
      try {
        process.kill(this.pid, signal);
      } catch {
        // ESRCH: it is exiting; its `exit` follows.
      }
    }
    // The launcher too: it may not have forked it yet, and it kills the child's process group.
    this.launcher.post({ type: 'kill', id: this.id, signal }, () => undefined);
    return true;
  }

  /** Keeps the host alive until it exits. */
  ref(): void {
    if (this.held || this.ended) return;
    this.held = true;
    this.launcher.hold(1);
  }

  /** Lets the host exit while it runs. */
  unref(): void {
    if (!this.held || this.ended) return;
    this.held = false;
    this.launcher.hold(-1);
  }

  /** What the launcher said of this child. */
  receive(message: FromLauncher): void {
    if (this.ended) return;
    if (message.type === 'started') {
      this.pid = message.pid;
      this.starting = false;
    } else if (message.type === 'message') this.emit('message', message.message);
    else if (message.type === 'error') {
      // It could not be started: no `exit` follows.
      if (this.starting) this.end(null, null, false);
      this.emit('error', reviveError(message.error));
    } else this.end(message.code, message.signal);
  }

  /** It exited (`code`/`signal`), or can no longer be reached (the launcher is gone). */
  end(code: number | null, signal: NodeJS.Signals | null, emit = true): void {
    if (this.ended) return;
    this.ended = true;
    this.starting = false;
    this.exitCode = code;
    this.signalCode = signal;
    if (this.held) this.launcher.hold(-1);
    this.launcher.forget(this);
    if (emit) this.emit('exit', code, signal);
  }
}

/** The host's side of the launcher process (see the module comment); {@link childLauncher} gives the current one. */
export class ChildLauncher {
  private readonly process: ChildProcess;
  private readonly children = new Map<number, RelayedChild>();
  private nextId = 1;
  /** Children that keep the host alive: while none does, neither does the launcher. */
  private holds = 0;
  private lost = false;

  constructor(module: ChildModule) {
    // Its own process group too: a terminal's Ctrl+C reaches the host only, whose exit then ends the launcher.
    this.process = fork(module.path, [], forkOptions(module.execArgv));
    this.process.on('message', (message: FromLauncher) => this.children.get(message.id)?.receive(message));
    // It could not be started, or died: its children are gone with it (they exit when their channel closes).
    this.process.on('error', () => this.lose());
    this.process.on('exit', () => this.lose());
    this.release();
  }

  /** Whether it still relays. */
  get connected(): boolean {
    return !this.lost && this.process.connected;
  }

  /** Asks for a child running `module` with `env`. */
  start(module: ChildModule, env: Record<string, string | undefined>): RelayedChild {
    const child = new RelayedChild(this, this.nextId++);
    this.children.set(child.id, child);
    this.hold(1);
    if (!this.post({ type: 'start', id: child.id, path: module.path, execArgv: module.execArgv, env }, () => undefined)) {
      queueMicrotask(() => child.receive({ type: 'error', id: child.id, error: { name: 'Error', message: 'the launcher process is gone' } }));
    }
    return child;
  }

  /** Sends `message` to the launcher; false where it is gone. */
  post(message: ToLauncher, callback: (error: Error | null) => void): boolean {
    if (!this.connected) return false;
    try {
      return this.process.send(message as object, callback);
    } catch {
      return false;
    }
  }

  /** A child started (+1) or stopped (−1) keeping the host alive. */
  hold(change: 1 | -1): void {
    this.holds += change;
    if (this.holds > 0) {
      this.process.ref();
      this.process.channel?.ref();
    } else this.release();
  }

  /** `child` has ended: it is no longer relayed. */
  forget(child: RelayedChild): void {
    this.children.delete(child.id);
  }

  private release(): void {
    this.process.unref();
    this.process.channel?.unref();
  }

  /** The launcher is gone: each child it had is reported ended (killed), and the next child starts a new launcher. */
  private lose(): void {
    if (this.lost) return;
    this.lost = true;
    if (current === this) current = undefined;
    for (const child of [...this.children.values()]) {
      // Its children exit when their channel closes; their process groups are killed here too.
      if (child.pid !== undefined && process.platform !== 'win32') {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // ESRCH: gone already.
        }
      }
      child.end(null, 'SIGKILL');
    }
  }
}

let current: ChildLauncher | undefined;

/** The running launcher, started (one fork of the host) when there is none. */
export function childLauncher(module: ChildModule): ChildLauncher {
  current ??= new ChildLauncher(module);
  return current;
}
