/**
 * Contract of the HTTP surface that needs no finished job: authentication on every route family,
 * the OpenAPI document, the avatar catalogue and uploads. Runs once per host framework.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { avatarListItemSchema, avatarSchema } from '../../src/core/schemas/avatar.js';
import { uploadSchema } from '../../src/core/schemas/upload.js';
import { ADAPTERS, KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { ISO_MS, UUID, assertError, assertKeys, download, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId, upload } from '../helpers/client.js';
import { useHarness } from '../helpers/harness.js';
import { slowUpload } from '../helpers/slow-upload.js';

const h = useHarness();

const AVATAR_LIST_ITEM_KEYS = ['uid', 'name', 'path', 'previewImagePath', 'thumbnailPath', 'thumbnailGenerationStatus', 'createdAt', 'updatedAt'];
const AVATAR_KEYS = AVATAR_LIST_ITEM_KEYS.filter((k) => k !== 'thumbnailGenerationStatus');
const UPLOAD_KEYS = ['url', 'uid', 'fileName', 'contentType', 'size', 'createdAt', 'expiresAt'];
const UPLOAD_LIMIT = 50_000;

/** Blob folders under the app's data dir (avatar assets included). */
async function blobsOnDisk(app: TestApp): Promise<string[]> {
  return (await readdir(join(app.dataDir, 'blobs')).catch(() => [] as string[])).sort();
}

for (const adapter of ADAPTERS) {
  describe(`API contract over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    before(async () => {
      app = await makeApp(adapter, { limits: { maxUploadBytes: UPLOAD_LIMIT } });
    });
    after(() => app.close());

    describe('authentication', () => {
      /** One route of each family, with ids of resources owned by KEYS.a. */
      let routes: { method: 'get' | 'post'; path: string }[];
      before(async () => {
        const avatarId = await firstAvatarId(app, KEYS.a);
        const video = await createVideo(app, KEYS.a, { audioUrl: h.url('speech.mp3'), avatarId, dangerousFlag: true });
        const separation = await createSeparation(app, KEYS.a, h.url('speech.mp3'));
        const file = await upload(app, KEYS.a, h.path('speech.mp3'));
        routes = [
          { method: 'get', path: '/v2/avatar' },
          { method: 'get', path: `/v2/avatar/${avatarId}` },
          { method: 'post', path: '/v2/2davatar' },
          { method: 'get', path: '/v2/2davatar' },
          { method: 'get', path: `/v2/2davatar/${video}` },
          { method: 'post', path: '/v1/sourceSeparations' },
          { method: 'get', path: '/v1/sourceSeparations' },
          { method: 'get', path: `/v1/sourceSeparations/${separation}` },
          { method: 'post', path: '/v1/uploads' },
          { method: 'get', path: `/v1/uploads/${file.uid}` },
        ];
      });

      it('answers 403 on every route when the key header is missing, empty or wrong', async () => {
        const variants: [string, Record<string, string>][] = [
          ['missing', {}],
          ['wrong', { key: 'not-a-key' }],
          ['bearer without a key', { key: 'Bearer ' }],
          ['key only in Authorization', { authorization: `Bearer ${KEYS.a}` }],
          ['a prefix of a key', { key: KEYS.a.slice(0, -1) }],
        ];
        for (const { method, path } of routes) {
          for (const [what, headers] of variants) {
            const res = await app.http[method](path).set(headers).send(method === 'post' ? {} : undefined);
            assert.equal(res.status, 403, `${what} key on ${method.toUpperCase()} ${path}: ${res.status} ${res.text}`);
            assertError(res, 403, 'forbidden');
          }
        }
      });

      it('accepts the bare key and `Bearer <key>` on every route', async () => {
        for (const { method, path } of routes) {
          for (const value of [KEYS.a, `Bearer ${KEYS.a}`, `bearer ${KEYS.a}`]) {
            const res = await app.http[method](path).set('key', value).send(method === 'post' ? {} : undefined);
            // POSTs with an empty body are refused for the body, not for the key.
            assert.equal(res.status, method === 'post' ? 400 : 200, `${value} on ${method.toUpperCase()} ${path}: ${res.text}`);
          }
        }
      });

      it("answers 404 for another key's job, separation and upload, and leaves them out of its lists", async () => {
        for (const { path } of routes.filter((r) => r.method === 'get' && /\/(2davatar|sourceSeparations|uploads)\//.test(r.path))) {
          assertError(await app.http.get(path).set('key', KEYS.b), 404, 'not_found');
          assert.equal((await app.http.get(path).set('key', KEYS.a)).status, 200);
        }
        for (const list of ['/v2/2davatar', '/v1/sourceSeparations']) {
          const res = await app.http.get(list).set('key', KEYS.b);
          assert.equal(res.status, 200);
          assert.equal(res.body.total, 0);
          assert.deepEqual(res.body.data, []);
        }
      });

      it('answers 404 for a separation uid on the video route and a video uid on the separation route', async () => {
        const video = routes.find((r) => r.path.startsWith('/v2/2davatar/'))!.path.split('/').pop();
        const separation = routes.find((r) => r.path.startsWith('/v1/sourceSeparations/'))!.path.split('/').pop();
        assertError(await app.http.get(`/v2/2davatar/${separation}`).set('key', KEYS.a), 404, 'not_found');
        assertError(await app.http.get(`/v1/sourceSeparations/${video}`).set('key', KEYS.a), 404, 'not_found');
      });

      it('answers 404 for unknown job, separation and upload ids', async () => {
        for (const path of [`/v2/2davatar/${randomUUID()}`, `/v1/sourceSeparations/${randomUUID()}`, '/v1/uploads/no-such-upload']) {
          assertError(await app.http.get(path).set('key', KEYS.a), 404, 'not_found');
        }
      });
    });

    describe('custom authenticate and the address guard', () => {
      let guarded: TestApp;
      before(async () => {
        guarded = await makeApp(adapter, {
          apiKeys: undefined,
          authenticate: (key) => {
            if (key === 'throwing-key') throw new Error('key store down');
            return key === 'custom-key';
          },
          allowPrivateUrls: false,
        });
      });
      after(() => guarded.close());

      it('accepts what authenticate accepts; a refusal is 403, a throw 503 (the key could not be checked)', async () => {
        assert.equal((await guarded.http.get('/v2/avatar').set('key', 'custom-key')).status, 200);
        assert.equal((await guarded.http.get('/v2/avatar').set('key', 'Bearer custom-key')).status, 200);
        assertError(await guarded.http.get('/v2/avatar').set('key', KEYS.a), 403, 'forbidden');
        assertError(await guarded.http.get('/v2/avatar').set('key', 'throwing-key'), 503, 'unavailable');
      });

      it('refuses loopback and private input URLs (400 forbidden_address) but takes its own upload links', async () => {
        const avatarId = await firstAvatarId(guarded, 'custom-key');
        for (const audioUrl of [h.url('speech.mp3'), 'http://localhost:1/a.wav', 'http://169.254.169.254/latest', 'http://[::1]:1/a.wav']) {
          const res = await guarded.http.post('/v2/2davatar').set('key', 'custom-key').send({ audioUrl, avatarId });
          assertError(res, 400, 'forbidden_address', ['body.audioUrl']);
        }
        const separation = await guarded.http.post('/v1/sourceSeparations').set('key', 'custom-key').send({ audioUri: h.url('speech.wav') });
        assertError(separation, 400, 'forbidden_address', ['body.audioUri']);
        const file = await upload(guarded, 'custom-key', h.path('speech.mp3'));
        assert.ok(file.url.startsWith('http://127.0.0.1:'), file.url);
        await createVideo(guarded, 'custom-key', { audioUrl: file.url, avatarId, dangerousFlag: true });
      });
    });

    describe('OpenAPI document', () => {
      it('is served without a key as OpenAPI 3.1 listing every path of the spec', async () => {
        const res = await app.http.get('/v1/openapi.json');
        assert.equal(res.status, 200);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.match(res.body.openapi, /^3\.1\.\d+$/);
        const paths = res.body.paths as Record<string, Record<string, unknown>>;
        const expected: [string, string][] = [
          ['/v2/avatar', 'get'],
          ['/v2/avatar/{uid}', 'get'],
          ['/v2/2davatar', 'post'],
          ['/v2/2davatar', 'get'],
          ['/v2/2davatar/{id}', 'get'],
          ['/v1/sourceSeparations', 'post'],
          ['/v1/sourceSeparations', 'get'],
          ['/v1/sourceSeparations/{source_separation_id}', 'get'],
          ['/v1/uploads', 'post'],
        ];
        for (const [path, method] of expected) assert.ok(paths[path]?.[method], `${method.toUpperCase()} ${path} missing`);
        assert.equal(res.body.servers[0].url, app.origin);
      });
    });

    describe('links', () => {
      it("derive from the request's own origin, not from an Origin header", async () => {
        const check = (body: { servers: { url: string }[] }) => assert.equal(body.servers[0]!.url, app.origin);
        check((await app.http.get('/v1/openapi.json')).body);
        check((await app.http.get('/v1/openapi.json').set('origin', 'http://evil.example')).body);
        for (const origin of [undefined, 'http://evil.example']) {
          const req = app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a);
          const res = origin ? await req.set('origin', origin) : await req;
          assert.ok(res.body.data[0].path.startsWith(`${app.origin}/files/`), `Origin ${origin}: ${res.body.data[0].path}`);
          const file = origin
            ? await app.http.post('/v1/uploads').set('key', KEYS.a).set('origin', origin).attach('file', h.path('speech.mp3'))
            : await app.http.post('/v1/uploads').set('key', KEYS.a).attach('file', h.path('speech.mp3'));
          assert.equal(file.body.url, `${app.origin}/v1/uploads/${file.body.uid}`);
        }
      });
    });

    describe('routing', () => {
      it('answers 405 with an Allow header for a wrong method on a known path', async () => {
        const res = await app.http.delete('/v2/2davatar').set('key', KEYS.a);
        assertError(res, 405, 'method_not_allowed');
        assert.match(String(res.headers.allow), /GET/);
        assert.match(String(res.headers.allow), /POST/);
      });

      it('leaves paths that are not its own to the host app', async () => {
        const res = await app.http.get('/v3/avatar').set('key', KEYS.a);
        assert.equal(res.status, 404);
        assert.equal(res.body?.error, undefined);
      });
    });

    describe('avatars', () => {
      it('lists the catalogue in the envelope with exactly the list fields', async () => {
        const res = await app.http.get('/v2/avatar').set('key', KEYS.a);
        assert.equal(res.status, 200);
        assertKeys(res.body, ['page', 'perPage', 'total', 'nextPage', 'data'], 'envelope');
        assert.equal(res.body.page, 1);
        assert.equal(res.body.perPage, 20);
        assert.equal(res.body.total, 3);
        assert.equal(res.body.nextPage, null);
        assert.equal(res.body.data.length, 3);
        for (const item of res.body.data) {
          assertKeys(item, AVATAR_LIST_ITEM_KEYS, 'avatar list item');
          avatarListItemSchema.strict().parse(item);
          assert.match(item.uid, UUID);
          assert.match(item.createdAt, ISO_MS);
          assert.equal(item.thumbnailGenerationStatus, 'completed');
          for (const link of [item.path, item.previewImagePath, item.thumbnailPath]) {
            assert.ok(link.startsWith(`${app.origin}/files/`), link);
          }
        }
        assert.equal(new Set(res.body.data.map((a: { uid: string }) => a.uid)).size, 3);
      });

      it("serves an avatar's video, preview and thumbnail through its signed links", async () => {
        const [avatar] = (await app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a)).body.data;
        const video = await download(avatar.path);
        assert.equal(video.status, 200);
        assert.equal(video.headers.get('content-type'), 'video/mp4');
        for (const link of [avatar.previewImagePath, avatar.thumbnailPath]) {
          const image = await download(link);
          assert.equal(image.status, 200);
          assert.equal(image.headers.get('content-type'), 'image/png');
          assert.deepEqual([...image.body.subarray(1, 4)], [...Buffer.from('PNG')]);
        }
      });

      it('pages with page and perPage', async () => {
        const first = await app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a);
        assert.equal(first.status, 200);
        assert.deepEqual([first.body.page, first.body.perPage, first.body.total, first.body.nextPage], [1, 1, 3, 2]);
        assert.equal(first.body.data.length, 1);
        const second = await app.http.get('/v2/avatar?perPage=1&page=2').set('key', KEYS.a);
        assert.deepEqual([second.body.page, second.body.nextPage, second.body.data.length], [2, 3, 1]);
        assert.notEqual(second.body.data[0].uid, first.body.data[0].uid);
        const last = await app.http.get('/v2/avatar?perPage=2&page=2').set('key', KEYS.a);
        assert.deepEqual([last.body.nextPage, last.body.data.length], [null, 1]);
        const lastExactly = await app.http.get('/v2/avatar?perPage=1&page=3').set('key', KEYS.a);
        assert.deepEqual([lastExactly.body.nextPage, lastExactly.body.data.length], [null, 1]);
        const all = await app.http.get('/v2/avatar?perPage=3').set('key', KEYS.a);
        assert.deepEqual([all.body.nextPage, all.body.data.length], [null, 3]);
        const beyond = await app.http.get('/v2/avatar?perPage=1&page=9').set('key', KEYS.a);
        assert.equal(beyond.status, 200);
        assert.deepEqual([beyond.body.total, beyond.body.nextPage, beyond.body.data], [3, null, []]);
        const max = await app.http.get('/v2/avatar?perPage=100').set('key', KEYS.a);
        assert.equal(max.status, 200);
        assert.equal(max.body.perPage, 100);
      });

      it('answers 400 naming the field for out-of-range or malformed paging and unknown query fields', async () => {
        for (const value of ['0', '-1', 'abc', '101', '1.5', '']) {
          const res = await app.http.get(`/v2/avatar?perPage=${value}`).set('key', KEYS.a);
          assertError(res, 400, 'validation_failed', ['query.perPage']);
          if (value === '101') assert.equal(res.body.error.details[0].message, 'perPage is 101; at most 100 is accepted (limits.maxPerPage)');
        }
        for (const value of ['0', '-2', 'x']) {
          assertError(await app.http.get(`/v2/avatar?page=${value}`).set('key', KEYS.a), 400, 'validation_failed', ['query.page']);
        }
        assertError(await app.http.get('/v2/avatar?color=red').set('key', KEYS.a), 400, 'validation_failed', ['query.color']);
      });

      it('fetches one avatar with exactly the single-avatar fields', async () => {
        const [listed] = (await app.http.get('/v2/avatar?perPage=1').set('key', KEYS.a)).body.data;
        const res = await app.http.get(`/v2/avatar/${listed.uid}`).set('key', KEYS.a);
        assert.equal(res.status, 200);
        assertKeys(res.body, AVATAR_KEYS, 'avatar');
        avatarSchema.strict().parse(res.body);
        assert.deepEqual([res.body.uid, res.body.name, res.body.createdAt], [listed.uid, listed.name, listed.createdAt]);
      });

      it('answers 404 for an unknown avatar uid', async () => {
        assertError(await app.http.get(`/v2/avatar/${randomUUID()}`).set('key', KEYS.a), 404, 'not_found');
        assertError(await app.http.get('/v2/avatar/not-a-uid').set('key', KEYS.a), 404, 'not_found');
      });
    });

    describe('uploads', () => {
      it('stores a multipart `file` part and answers 201 with a private url', async () => {
        const before = Date.now();
        const res = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', h.path('speech.mp3'));
        assert.equal(res.status, 201, res.text);
        assertKeys(res.body, UPLOAD_KEYS, 'upload');
        uploadSchema.strict().parse(res.body);
        assert.equal(res.body.url, `${app.origin}/v1/uploads/${res.body.uid}`);
        assert.equal(res.body.fileName, 'speech.mp3');
        assert.equal(res.body.size, (await stat(h.path('speech.mp3'))).size);
        assert.equal(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt), 24 * 3_600_000);
        assert.ok(Date.parse(res.body.createdAt) >= before - 1000);
        const again = await app.http.get(`/v1/uploads/${res.body.uid}`).set('key', KEYS.c);
        assert.equal(again.status, 200);
        assert.deepEqual({ ...again.body, createdAt: undefined }, { ...res.body, createdAt: undefined });
      });

      it('reports the same createdAt on POST and on GET of an upload that took a while to arrive', async () => {
        const sending = slowUpload(app.origin, '/v1/uploads', KEYS.c, await readFile(h.path('speech.mp3')));
        await sleep(150);
        sending.finish();
        const created = await sending.response;
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const body = created.body as { uid: string; createdAt: string };
        const fetched = await app.http.get(`/v1/uploads/${body.uid}`).set('key', KEYS.c);
        assert.equal(fetched.body.createdAt, body.createdAt);
      });

      it('the url works as audioUrl and audioUri for the same key only', async () => {
        const file = await upload(app, KEYS.c, h.path('speech.mp3'));
        const avatarId = await firstAvatarId(app, KEYS.c);
        const video = await createVideo(app, KEYS.c, { audioUrl: file.url, avatarId });
        const separation = await createSeparation(app, KEYS.c, file.url);
        const other = await app.http.post('/v2/2davatar').set('key', KEYS.d).send({ audioUrl: file.url, avatarId });
        assertError(other, 400, 'not_found', ['body.audioUrl']);
        const otherSeparation = await app.http.post('/v1/sourceSeparations').set('key', KEYS.d).send({ audioUri: file.url });
        assertError(otherSeparation, 400, 'not_found', ['body.audioUri']);
        assert.equal((await waitForJob(app, `/v2/2davatar/${video}`, KEYS.c)).status, 'completed');
        assert.equal((await waitForJob(app, `/v1/sourceSeparations/${separation}`, KEYS.c)).status, 'completed');
        // The caller's upload outlives the jobs that used it.
        assert.equal((await app.http.get(`/v1/uploads/${file.uid}`).set('key', KEYS.c)).status, 200);
      });

      it('answers 400 when the file part is missing, misnamed, empty or repeated, and keeps no blob', async () => {
        const blobs = await blobsOnDisk(app);
        const noFile = await app.http.post('/v1/uploads').set('key', KEYS.c).field('note', 'hello');
        assertError(noFile, 400, 'missing_file');
        const misnamed = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('audio', h.path('speech.mp3'));
        assertError(misnamed, 400, 'missing_file');
        const empty = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', Buffer.alloc(0), 'empty.wav');
        assertError(empty, 400, 'missing_file');
        const twice = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', h.path('speech.mp3')).attach('file', h.path('speech.mp3'));
        assertError(twice, 400, 'too_many_files');
        assert.deepEqual(await blobsOnDisk(app), blobs);
      });

      it('keeps the base name of the client file name, decoded as UTF-8 (as browsers send it), without control characters', async () => {
        const data = await readFile(h.path('speech.mp3'));
        const names: [string, string][] = [
          ['../../etc/speech.mp3', 'speech.mp3'],
          ['C:\\Users\\me\\voice.mp3', 'voice.mp3'],
          ['tab\there.mp3', 'tabhere.mp3'],
          ['Grüße – 日本.mp3', 'Grüße – 日本.mp3'],
        ];
        for (const [sent, kept] of names) {
          const res = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', data, sent);
          assert.equal(res.status, 201, res.text);
          assert.equal(res.body.fileName, kept, `sent ${JSON.stringify(sent)}`);
        }
      });

      it('answers (400) a part header the multipart parser rejects, instead of leaving the request hanging', async () => {
        const data = await readFile(h.path('speech.mp3'));
        // A control character in the part header makes busboy report "Malformed part header".
        const sending = slowUpload(app.origin, '/v1/uploads', KEYS.e, data, 'bell\u0007.mp3');
        sending.finish();
        const answer = await Promise.race([sending.response, sleep(2000).then(() => undefined)]);
        assert.ok(answer, 'no answer within 2 s');
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.equal((answer.body as { error: { code: string } }).error.code, 'not_multipart');
        assert.equal((await app.http.post('/v1/uploads').set('key', KEYS.e).attach('file', data, 'ok.mp3')).status, 201);
      });

      it('answers 400 to a JSON (not multipart) body', async () => {
        const res = await app.http.post('/v1/uploads').set('key', KEYS.c).send({ file: 'abc' });
        assertError(res, 400, 'not_multipart');
      });

      it('answers 413 over limits.maxUploadBytes and keeps no blob', async () => {
        const blobs = await blobsOnDisk(app);
        // Caught while streaming: the declared length is within the multipart allowance.
        const streamed = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', h.path('tone-80k.wav'));
        assertError(streamed, 413, 'too_large');
        assert.equal(streamed.body.error.message, 'the file is larger than 48.8 KiB (50000 bytes); at most 48.8 KiB (50000 bytes) is accepted (limits.maxUploadBytes)');
        // Refused up front: the declared length is far over the limit.
        const declared = await app.http.post('/v1/uploads').set('key', KEYS.c).attach('file', h.path('long.wav'));
        assertError(declared, 413, 'too_large');
        assert.match(declared.body.error.message, /^the request body is 1\.4 MiB \(\d+ bytes\); at most 48\.8 KiB \(50000 bytes\) is accepted \(limits\.maxUploadBytes\)$/);
        assert.deepEqual(await blobsOnDisk(app), blobs);
        assert.deepEqual(await readdir(join(app.dataDir, 'tmp')), []);
      });
    });
  });
}
