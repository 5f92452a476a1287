/**
 * Child-process entry of {@link MediaSpawner} (media-spawner.ts): starts the processes it is asked for from this
 * small process (with `spawnMedia`, as the caller would) and hands their stdin to its parent. Node starts a process by
 * forking the caller: the fork copies the caller's page tables, and afterwards every page the caller writes faults
 * once more (copy on write). A frame child that spawns its ffmpeg itself pays that for hundreds of MB (its canvas
 * arenas, frame ring, heap) at each video; this process pays it for its own few MB.
 */
import type { ChildProcess } from 'node:child_process';
import { MediaProcessError } from './errors.js';
import { exitError, spawnMedia } from './process.js';
import type { FromSpawner, SpawnFailure, ToSpawner } from './spawner-protocol.js';

const send = process.send?.bind(process);
if (!send) throw new Error('spawner-child runs in a process started by MediaSpawner only');
process.title = 'virtual-anchor media spawner';
const running = new Map<number, ChildProcess>();

const post = (message: FromSpawner, handle?: unknown) => {
  if (!process.connected) return;
  // The handle is closed here once sent: only the parent holds stdin's writing end, so its end() reaches the process.
  send(message, handle as never, undefined, () => undefined);
};

/** `error` (spawnMedia's, or what spawn threw) as the parent rebuilds it. */
function failure(error: MediaProcessError): SpawnFailure {
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return { message: error.message, stderrTail: error.stderrTail, cause: cause && { message: cause.message, code: cause.code } };
}

process.on('message', (message: ToSpawner) => {
  if (message.type === 'kill') {
    running.get(message.id)?.kill('SIGKILL');
    return;
  }
  const { id, tool, binary, args, redact } = message;
  let proc: ReturnType<typeof spawnMedia>;
  try {
    proc = spawnMedia(tool, binary, args, { stdin: true, redact });
  } catch (error) {
    // Refused before starting (arguments Node will not pass on): the same report as a start that failed.
    const spawnError = error instanceof Error ? error : new Error(String(error));
    post({ type: 'exit', id, failure: failure(exitError(tool, { code: null, signal: null, stderr: '', spawnError }, { redact })) });
    return;
  }
  const { child } = proc;
  running.set(id, child);
  child.stdin?.on('error', () => undefined);
  child.once('spawn', () => post({ type: 'spawned', id, pid: child.pid! }, child.stdin));
  proc.exited.then(
    () => post({ type: 'exit', id }),
    (error: MediaProcessError) => post({ type: 'exit', id, failure: failure(error) }),
  ).finally(() => running.delete(id));
});

// The parent is gone (ended, crashed or killed): so are the processes it was writing to.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
