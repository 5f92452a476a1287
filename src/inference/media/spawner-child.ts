/**
 * Child-process entry of {@link MediaSpawner} (media-spawner.ts): starts the processes it is asked for from this
 * small process and hands their stdin to its parent. Node starts a process by forking the caller: the fork copies the
 * caller's page tables, and afterwards every page the caller writes faults once more (copy on write). A frame child
 * that spawns its ffmpeg itself pays that for hundreds of MB (its canvas arenas, frame ring, heap) at each video;
 * this process pays it for its own few MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { FromSpawner, ToSpawner } from './spawner-protocol.js';
import { STDERR_TAIL_CHARS } from './process.js';

const send = process.send?.bind(process);
if (!send) throw new Error('spawner-child runs in a process started by MediaSpawner only');
process.title = 'virtual-anchor media spawner';
const running = new Map<number, ChildProcess>();

const post = (message: FromSpawner, handle?: unknown) => {
  if (!process.connected) return;
  // The handle is closed here once sent: only the parent holds stdin's writing end, so its end() reaches the process.
  send(message, handle as never, undefined, () => undefined);
};

process.on('message', (message: ToSpawner) => {
  if (message.type === 'kill') {
    running.get(message.id)?.kill('SIGKILL');
    return;
  }
  const { id, binary, args } = message;
  let stderr = '';
  let error: { message: string; code?: string } | undefined;
  let child: ChildProcess;
  try {
    child = spawn(binary, args, { stdio: ['pipe', 'ignore', 'pipe'], windowsHide: true });
  } catch (failure) {
    // Refused before starting (arguments Node will not pass on): the same report as a start that failed.
    const { message, code } = failure as NodeJS.ErrnoException;
    post({ type: 'exit', id, code: null, signal: null, stderr: '', error: { message, code } });
    return;
  }
  running.set(id, child);
  child.stdin?.on('error', () => undefined);
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  child.once('spawn', () => post({ type: 'spawned', id, pid: child.pid! }, child.stdin));
  child.once('error', (failure: NodeJS.ErrnoException) => {
    error = { message: failure.message, code: failure.code };
  });
  child.once('close', (code, signal) => {
    running.delete(id);
    post({ type: 'exit', id, code, signal, stderr, error });
  });
});

// The parent is gone (ended, crashed or killed): so are the processes it was writing to.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
