/**
 * Fault injection on the filesystem blob store (issue #10, items 2, 7 and 8): a source that fails before
 * the copy starts, a put racing another for one id, and entries left in `tmp/` by dead processes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, utimes } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import * as blobStore from '../../src/storage/blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { tempDirs } from '../storage/temp-dir.js';

const freshDir = tempDirs('va-fault-blobs-');
const META = { contentType: 'video/mp4', owner: 'owner-a' };

/** Fails the test if anything reaches `uncaughtException` while `body` runs (and a little after). */
async function noUncaught(body: () => Promise<void>): Promise<void> {
  const seen: unknown[] = [];
  const listener = (error: unknown) => seen.push(error);
  process.on('uncaughtException', listener);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 50));
  } finally {
    process.off('uncaughtException', listener);
  }
  assert.deepEqual(seen.map(String), [], 'an error escaped to uncaughtException');
}

/** A pid that is certainly not running: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(child.pid);
  return child.pid;
}

describe('FsBlobStore under faults', () => {
  it('a source that fails before the copy starts (a missing file) rejects put and crashes nothing', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    await noUncaught(async () => {
      // The first put also creates the folders: the longest wait before the copy starts.
      await assert.rejects(store.put(createReadStream(join(dir, 'no-such-output.mp4')), META), { code: 'ENOENT' });
      await assert.rejects(store.put(createReadStream(join(dir, 'no-such-output.mp4')), META, { id: 'fixed-id-0001' }), { code: 'ENOENT' });
    });
    assert.deepEqual(await readdir(join(dir, 'tmp')), [], 'put left its staging folder');
    assert.equal(await store.stat('fixed-id-0001'), undefined);
  });

  it('a source that errors mid-copy rejects with its own error and leaves nothing', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    const failing = new Readable({
      read() {
        this.destroy(new Error('injected: source failed'));
      },
    });
    await noUncaught(async () => {
      await assert.rejects(store.put(failing, META), /injected: source failed/);
    });
    assert.deepEqual(await readdir(join(dir, 'tmp')), []);
  });

  it('a put with a taken id rejects with BlobExistsError and keeps the first blob', async () => {
    const store = new FsBlobStore(await freshDir());
    const { BlobExistsError } = blobStore as Record<string, unknown> as { BlobExistsError?: new (id: string) => Error };
    assert.equal(typeof BlobExistsError, 'function', 'blob-store.ts exports no BlobExistsError');
    const texts = ['first', 'second', 'third'];
    const puts = await Promise.allSettled(texts.map((text) => store.put(Readable.from([text]), META, { id: 'raced-id-0001' })));
    const won = puts.filter((p) => p.status === 'fulfilled');
    const lost = puts.filter((p): p is PromiseRejectedResult => p.status === 'rejected');
    assert.equal(won.length, 1);
    assert.equal(lost.length, 2);
    for (const loss of lost) assert.ok(loss.reason instanceof BlobExistsError!, String(loss.reason));
    // The three puts race: whichever created the blob first won, and the blob is exactly its bytes.
    const winner = texts[puts.findIndex((p) => p.status === 'fulfilled')]!;
    assert.equal((await store.stat('raced-id-0001'))?.size, winner.length);
    const stored = await store.open('raced-id-0001');
    assert.ok(stored, 'the blob can be opened');
    let content = '';
    for await (const chunk of stored) content += String(chunk);
    assert.equal(content, winner);
  });

  it('removes tmp/ entries of dead processes at removeLeftovers, and only those', async () => {
    const dir = await freshDir();
    const store = new FsBlobStore(dir);
    assert.equal(typeof store.removeLeftovers, 'function', 'FsBlobStore has no removeLeftovers');
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64);
    const dead = await deadPid();
    const names = {
      deadPut: `put-${dead}@${host}~abc123`,
      deadDelete: `delete-${dead}@${host}~abcdefgh`,
      livePut: `put-${process.pid}@${host}~xyz789`,
      otherHostRecent: `put-1@another-host.example~recent`,
      otherHostOld: `put-1@another-host.example~old000`,
      unnamedOld: 'put-Zq81xY',
      livePutOld: `put-${process.pid}@${host}~ancient`,
    };
    for (const name of Object.values(names)) await mkdir(join(dir, 'tmp', name, 'inner'), { recursive: true });
    const longAgo = new Date(Date.now() - 48 * 3_600_000);
    // Untouched for two days: abandoned whoever made it (a pid may have been reused).
    for (const name of [names.otherHostOld, names.unnamedOld, names.livePutOld]) await utimes(join(dir, 'tmp', name), longAgo, longAgo);
    const report = await store.removeLeftovers();
    assert.equal(report.removed, 5);
    assert.deepEqual(report.failed, []);
    assert.deepEqual((await readdir(join(dir, 'tmp'))).sort(), [names.livePut, names.otherHostRecent].sort());
  });
});
