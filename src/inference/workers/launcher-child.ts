/**
 * Child-process entry of the host's {@link ChildLauncher} (relayed-child.ts): forks the engine children the host asks
 * for and relays their messages both ways. Node starts a process by forking the caller, which stops the caller's
 * thread for a time that grows with its memory (page tables copied: 30–49 ms for a 1 GiB host on a 2-vCPU VM); this process is small, so the host's event loop pays for one fork (this one) instead of one per
 * engine child.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { lowerSessionPriority } from './background-priority.js';
import { forkOptions } from './child-module.js';
import type { FromLauncher, ToLauncher } from './launcher-protocol.js';
import { serializeError } from './task-protocol.js';

const send = process.send?.bind(process);
if (!send) throw new Error('launcher-child runs in a process started by ChildLauncher only');
process.title = 'virtual-anchor launcher';
const children = new Map<number, ChildProcess>();

const post = (message: FromLauncher) => {
  if (process.connected) send(message, () => undefined);
};

/** Kills a child and its process group (see startChild): SIGKILL, it may be stuck in native code. */
function killAll(child: ChildProcess): void {
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // ESRCH: gone already.
  }
  child.kill('SIGKILL');
}

function start({ id, path, execArgv, env }: Extract<ToLauncher, { type: 'start' }>): void {
  let child: ChildProcess;
  try {
    child = fork(path, [], forkOptions(execArgv, env));
  } catch (error) {
    post({ type: 'error', id, error: serializeError(error) });
    return;
  }
  children.set(id, child);
  if (child.pid !== undefined) {
    // Its session is its own scheduling group on Linux: lowered at once, before the child loads its modules.
    lowerSessionPriority(child.pid);
    post({ type: 'started', id, pid: child.pid });
  }
  child.on('message', (message: unknown) => post({ type: 'message', id, message }));
  child.on('error', (error) => post({ type: 'error', id, error: serializeError(error) }));
  // `close`, not `exit`: it comes once the channel has delivered everything the child sent (a report written right
  // before it exited included), so the host hears the exit after the child's last message.
  child.on('close', (code, signal) => {
    children.delete(id);
    post({ type: 'exit', id, code, signal });
  });
}

process.on('message', (message: ToLauncher) => {
  if (message.type === 'start') return start(message);
  const child = children.get(message.id);
  if (!child) return; // it exited: the host hears that from its `exit` message
  if (message.type === 'kill') {
    if (message.signal === 'SIGKILL') killAll(child);
    else child.kill(message.signal);
    return;
  }
  // A child whose channel closed meanwhile is reported by its `exit`, not by the send.
  if (child.connected) child.send(message.message as object, () => undefined);
});

// The host is gone (ended, crashed or killed): so are the children it asked for, and what they started.
process.on('disconnect', () => {
  for (const child of children.values()) killAll(child);
  process.exit(0);
});
