import assert from 'node:assert/strict';
import type { TestApp } from './apps.js';

/** The first avatar uid of the catalogue. */
export async function firstAvatarId(app: TestApp, key: string): Promise<string> {
  const res = await app.http.get('/v2/avatar').set('key', key);
  assert.equal(res.status, 200, res.text);
  return (res.body.data as { uid: string }[])[0]!.uid;
}

/** POST /v2/2davatar; asserts 201 and returns the created job's uid. */
export async function createVideo(app: TestApp, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await app.http.post('/v2/2davatar').set('key', key).send(body);
  assert.equal(res.status, 201, res.text);
  return (res.body as { uid: string }[])[0]!.uid;
}

/** POST /v1/sourceSeparations; asserts 201 and returns the created job's uid. */
export async function createSeparation(app: TestApp, key: string, audioUri: string): Promise<string> {
  const res = await app.http.post('/v1/sourceSeparations').set('key', key).send({ audioUri });
  assert.equal(res.status, 201, res.text);
  return (res.body as { uid: string }[])[0]!.uid;
}

/** POST /v1/uploads with `path` as the part `file`; asserts 201 and returns the body. */
export async function upload(app: TestApp, key: string, path: string): Promise<{ url: string; uid: string }> {
  const res = await app.http.post('/v1/uploads').set('key', key).attach('file', path);
  assert.equal(res.status, 201, res.text);
  return res.body as { url: string; uid: string };
}
