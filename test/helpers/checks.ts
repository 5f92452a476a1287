import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import type { TestApp } from './apps.js';

/** ISO 8601 UTC with exactly three fraction digits, e.g. `2026-01-01T00:00:00.000Z`. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The object has exactly these own keys (any order). */
export function assertKeys(value: unknown, keys: readonly string[], what = 'object'): void {
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `${what} is not an object: ${JSON.stringify(value)}`);
  assert.deepEqual(Object.keys(value).sort(), [...keys].sort(), `${what} has other fields than expected`);
}

/** `uid` is a UUID and `createdAt`/`updatedAt` are ISO timestamps with milliseconds. */
export function assertStamps(record: Record<string, unknown>): void {
  assert.match(String(record.uid), UUID);
  assert.match(String(record.createdAt), ISO_MS);
  assert.match(String(record.updatedAt), ISO_MS);
}

/** The response is a JSON error `{ error: { code, message, details? } }` with this status and code. */
export function assertError(res: Response, status: number, code: string, fields?: readonly string[]): void {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const error = (res.body as { error?: Record<string, unknown> }).error;
  assertKeys(res.body, ['error'], 'error body');
  assert.ok(error);
  assert.equal(error.code, code);
  assert.equal(typeof error.message, 'string');
  assert.ok((error.message as string).length > 0);
  if (fields) {
    const details = error.details as { field: string; message: string }[];
    assert.ok(Array.isArray(details), `no details in ${res.text}`);
    for (const detail of details) assertKeys(detail, ['field', 'message'], 'error detail');
    const named = details.map((d) => d.field);
    for (const field of fields) assert.ok(named.includes(field), `details ${JSON.stringify(named)} do not name ${field}`);
  } else if ('details' in error) {
    assertKeys(error, ['code', 'message', 'details']);
  } else {
    assertKeys(error, ['code', 'message']);
  }
}

/** Calls `probe` until it returns a value (not `undefined`), or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000, intervalMs = 40): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** Polls a job (`GET path` with `key`) until its status is final (or one of `statuses`); returns the last body. */
export function waitForJob(
  app: TestApp,
  path: string,
  key: string,
  statuses: readonly string[] = ['completed', 'error'],
  timeoutMs?: number,
): Promise<Record<string, unknown>> {
  let last: unknown;
  return waitFor(
    `${path} to reach ${statuses.join('/')}`,
    async () => {
      const res = await app.http.get(path).set('key', key);
      assert.equal(res.status, 200, res.text);
      last = res.body;
      return statuses.includes(res.body.status) ? (res.body as Record<string, unknown>) : undefined;
    },
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`${error.message}; last body: ${JSON.stringify(last)}`);
  });
}

/**
 * Polls a photo avatar (`GET /v2/avatar/:uid` with `key`) until its preparation has ended (its
 * `thumbnailGenerationStatus` is no longer `pending`); returns that body.
 */
export function waitForAvatar(app: TestApp, key: string, uid: string, timeoutMs?: number, intervalMs?: number): Promise<Record<string, unknown>> {
  return waitFor(
    `avatar ${uid} to leave pending`,
    async () => {
      const res = await app.http.get(`/v2/avatar/${uid}`).set('key', key);
      assert.equal(res.status, 200, res.text);
      return res.body.thumbnailGenerationStatus === 'pending' ? undefined : (res.body as Record<string, unknown>);
    },
    timeoutMs,
    intervalMs,
  );
}

/** A downloaded link. */
export interface Download {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** GETs an absolute link (no key) and reads the whole body. */
export async function download(link: string, headers: Record<string, string> = {}): Promise<Download> {
  const res = await fetch(link, { headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Writes a download to `path` (for ffprobe). */
export async function saveTo(path: string, data: Download): Promise<string> {
  await writeFile(path, data.body);
  return path;
}
