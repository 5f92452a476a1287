/**
 * RedisConnection.close() leaves nothing behind: a process whose Redis stopped answering closes its
 * connection and then exits on its own (no open socket, no reconnection loop), also after the server dies.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { RedisServerProcess, freePort } from '../helpers/redis-server.js';

const CHILD = fileURLToPath(new URL('../helpers/redis-close-child.ts', import.meta.url));

describe('RedisConnection.close', () => {
  const servers: RedisServerProcess[] = [];
  after(() => Promise.all(servers.map((server) => server.stop())));

  for (const afterClose of ['the server is killed', 'the server answers again'] as const) {
    it(`closes against a server that hangs, and the process exits once ${afterClose}`, { timeout: 30_000 }, async () => {
      const redis = new RedisServerProcess(await freePort());
      servers.push(redis);
      await redis.start();
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, redis.url], { stdio: ['pipe', 'pipe', 'inherit'] });
      const exited = once(child, 'exit');
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const until = async (text: string) => {
        for (let i = 0; i < 200 && !output.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 50));
        assert.ok(output.includes(text), `the child never printed ${text}: ${output}`);
      };
      try {
        await until('ready');
        redis.pause();
        child.stdin!.end('go\n');
        await until('closed');
        assert.match(output, /closed after StoreUnavailableError/);
        if (afterClose === 'the server is killed') await redis.stop();
        else redis.resume();
        const timer = setTimeout(() => child.kill('SIGKILL'), 8_000);
        const [code, signal] = await exited;
        clearTimeout(timer);
        assert.equal(signal, null, 'the process did not exit on its own within 8 s of closing its connection');
        assert.equal(code, 0);
      } finally {
        child.kill('SIGKILL');
        redis.resume();
      }
    });
  }
});
