import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { createClient } from '@redis/client';

/** The Redis the tests share (keys under a namespace of each test's own). */
export const SHARED_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Keys under a store namespace, read with a connection of our own. */
export async function redisKeysOf(namespace: string, url = SHARED_REDIS_URL): Promise<string[]> {
  const client = await createClient({ url }).connect();
  try {
    return await client.keys(`${namespace}::*`);
  } finally {
    await client.close();
  }
}

/** Deletes every key of a namespace: the job store's (`ns::…`), the queue's (`ns:jobs:…`) and its semaphores' (`ns:sem:…`). */
export async function deleteRedisNamespace(namespace: string, url = SHARED_REDIS_URL): Promise<void> {
  const client = await createClient({ url }).connect();
  try {
    const keys = await client.keys(`${namespace}:*`);
    if (keys.length > 0) await client.unlink(keys);
  } finally {
    await client.close();
  }
}

/** A free TCP port on 127.0.0.1 (nothing listens on it once this resolves). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A real `redis-server` of the test's own on a fixed port, started and stopped at will (nothing is
 * kept on disk: `--save '' --appendonly no`, so a restart is empty). Fails, never skips, when
 * redis-server is not installed.
 */
export class RedisServerProcess {
  readonly url: string;
  #child?: ChildProcess;

  constructor(readonly port: number) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  /** Starts the server; resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.#child) throw new Error('redis-server is running already');
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'notice'];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s:\n${output}`)), 10_000);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`cannot run redis-server (is it installed?): ${error.message}`));
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
    }).catch((error: unknown) => {
      this.#child = undefined;
      throw error;
    });
  }

  /** Freezes the server (SIGSTOP): connections stay open and nothing answers. */
  pause(): void {
    this.#child?.kill('SIGSTOP');
  }

  /** Lets a paused server go on (SIGCONT). */
  resume(): void {
    this.#child?.kill('SIGCONT');
  }

  /** Kills the server (SIGKILL: a crash, not a clean shutdown) and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }
}
