import assert from 'node:assert/strict';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { InputError } from '../../src/core/input/errors.js';
import { silentLogger } from '../../src/domain/logger.js';
import { InputResolver, type ResolveOptions } from '../../src/core/input/resolve-input.js';
import { startServer, type TestServer } from './helpers/http-server.js';
import { TEST_BINARIES, makeMediaFixtures, type FixtureName, type MediaFixtures } from './helpers/media-fixtures.js';
import { TrackingBlobStore } from './helpers/tracking-blob-store.js';

const BINARIES = TEST_BINARIES;
const SEPARATION: ResolveOptions = { kind: 'audio', maxBytes: 1_000_000, allowedContainers: ['mp3', 'wav', 'mp4', 'mov'] };
const AVATAR_AUDIO: ResolveOptions = { kind: 'audio', maxBytes: 1_000_000, maxDurationSec: 10 };
const IMAGE: ResolveOptions = { kind: 'image', maxBytes: 1_000_000 };

let fx: MediaFixtures;
let server: TestServer;
let blobs: TrackingBlobStore;
let resolver: InputResolver;

before(async () => {
  fx = await makeMediaFixtures();
  server = await startServer((req, res) => {
    if (req.url === '/junk') return res.end('this is text, not media '.repeat(40));
    const name = decodeURIComponent((req.url ?? '').replace(/^\/f\//, '')) as FixtureName;
    createReadStream(fx.path(name))
      .on('error', () => res.writeHead(404).end())
      .pipe(res);
  });
  blobs = await TrackingBlobStore.create();
  resolver = new InputResolver({ blobs, binaries: BINARIES, allowPrivateAddresses: true });
});
after(async () => {
  await server.close();
  await blobs.cleanup();
  await fx.cleanup();
});

const url = (name: FixtureName): string => `${server.origin}/f/${name}`;

/** Asserts an InputError with `code` (and `message`, when given), and that the download it made is gone again. */
async function rejectsAndCleansUp(promise: Promise<unknown>, code: string, message?: string): Promise<void> {
  const before = blobs.created.length;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof InputError, String(error));
    assert.equal(error.code, code, error.message);
    assert.equal(error.httpStatus, 400);
    if (message !== undefined) assert.equal(error.message, message);
    return true;
  });
  const made = blobs.created.slice(before);
  assert.deepEqual(await Promise.all(made.map((id) => blobs.stat(id))), made.map(() => undefined), 'download deleted');
}

async function upload(name: FixtureName, owner: string, expiresAt?: string): Promise<string> {
  const meta = { owner, contentType: 'application/octet-stream', ...(expiresAt ? { expiresAt } : {}) };
  return (await blobs.put(createReadStream(fx.path(name)), meta)).id;
}

describe('InputResolver: remote URLs', () => {
  for (const name of ['tone.mp3', 'tone.wav', 'clip.mp4', 'clip.mov'] as const) {
    it(`accepts ${name} for separation`, async () => {
      const resolved = await resolver.resolve(url(name), 'owner-a', SEPARATION);
      assert.equal(resolved.scratch, true);
      assert.equal(resolved.probe.container, name.split('.')[1]);
      assert.equal((await blobs.stat(resolved.blob.id))?.meta.owner, 'owner-a');
    });
  }

  it('refuses containers separation does not take (ogg, flac)', async () => {
    await rejectsAndCleansUp(resolver.resolve(url('tone.ogg'), 'owner-a', SEPARATION), 'unsupported_format');
    await rejectsAndCleansUp(resolver.resolve(url('tone.flac'), 'owner-a', SEPARATION), 'unsupported_format');
  });

  it('refuses audio over the duration limit, quoting the limit and its option, not the decode cut-off (11.5 s)', async () => {
    await rejectsAndCleansUp(
      resolver.resolve(url('long.wav'), 'owner-a', { ...AVATAR_AUDIO, maxDurationOption: 'limits.maxAvatarAudioSec' }),
      'too_long',
      'the audio lasts more than 10 s when decoded; at most 10 s is accepted (limits.maxAvatarAudioSec)',
    );
    const ok = await resolver.resolve(url('tone.wav'), 'owner-a', AVATAR_AUDIO);
    assert.ok(ok.probe.durationSec <= 10);
  });

  it('reports the duration the audio decodes to, and 0 for an image', async () => {
    const tone = await resolver.resolve(url('tone.wav'), 'owner-a', AVATAR_AUDIO);
    assert.ok(Math.abs(tone.durationSec - 1) < 0.01, `tone.wav decodes to ${tone.durationSec} s`);
    assert.equal((await resolver.resolve(url('frame.png'), 'owner-a', IMAGE)).durationSec, 0);
  });

  it('accepts audio decoding a fraction of a second past the limit, cut to the limit', async () => {
    const resolved = await resolver.resolve(url('long.wav'), 'owner-a', { ...AVATAR_AUDIO, maxDurationSec: 11.7 });
    assert.equal(resolved.durationSec, 11.7);
    // Under the decode cut-off (12.9 s) the length is known and given.
    await rejectsAndCleansUp(
      resolver.resolve(url('long.wav'), 'owner-a', { ...AVATAR_AUDIO, maxDurationSec: 11.4 }),
      'too_long',
      'the audio lasts 12 s when decoded; at most 11.4 s is accepted',
    );
  });

  it('refuses with timeout when decoding outlasts its deadline', async () => {
    const hasty = new InputResolver({ blobs, binaries: BINARIES, allowPrivateAddresses: true, decodeTimeoutMs: 1 });
    await rejectsAndCleansUp(hasty.resolve(url('long.wav'), 'owner-a', AVATAR_AUDIO), 'timeout');
  });

  it('logs a refused download it cannot delete, and still answers with the refusal', async () => {
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = { ...silentLogger, warn: (message: string, fields?: Record<string, unknown>) => warnings.push({ message, fields }) };
    const stuck = Object.assign(Object.create(blobs) as TrackingBlobStore, {
      delete: () => Promise.reject(new Error('disk is read-only')),
    });
    const careful = new InputResolver({ blobs: stuck, binaries: BINARIES, allowPrivateAddresses: true, logger });
    await assert.rejects(careful.resolve(url('long.wav'), 'owner-a', AVATAR_AUDIO), { code: 'too_long' });
    assert.equal(warnings.length, 1);
    assert.match(String(warnings[0]?.fields?.error), /read-only/);
  });

  it('refuses an image or a silent video as audio', async () => {
    await rejectsAndCleansUp(resolver.resolve(url('frame.png'), 'owner-a', SEPARATION), 'not_audio');
    await rejectsAndCleansUp(resolver.resolve(url('silent-video.mp4'), 'owner-a', AVATAR_AUDIO), 'not_audio');
  });

  it('refuses a file that is not media at all, and a missing one', async () => {
    await rejectsAndCleansUp(resolver.resolve(`${server.origin}/junk`, 'owner-a', SEPARATION), 'not_audio');
    await rejectsAndCleansUp(resolver.resolve(`${server.origin}/junk`, 'owner-a', IMAGE), 'not_image');
    await rejectsAndCleansUp(resolver.resolve(`${server.origin}/f/nothing-here`, 'owner-a', SEPARATION), 'unreachable');
  });

  it('accepts a png as an image and refuses audio or video as one', async () => {
    const image = await resolver.resolve(url('frame.png'), 'owner-a', IMAGE);
    assert.equal(image.probe.video?.codec, 'png');
    await rejectsAndCleansUp(resolver.resolve(url('tone.wav'), 'owner-a', IMAGE), 'not_image');
    await rejectsAndCleansUp(resolver.resolve(url('clip.mp4'), 'owner-a', IMAGE), 'not_image');
  });

  it('refuses private addresses unless allowed', async () => {
    const strict = new InputResolver({ blobs, binaries: BINARIES });
    await rejectsAndCleansUp(strict.resolve(url('tone.wav'), 'owner-a', SEPARATION), 'forbidden_address');
  });

  it('maps a download over maxBytes to too_large (413), naming the limit in KiB and its option', async () => {
    // The test server sends no Content-Length: the download is cut off at the limit, so its size is not known.
    await assert.rejects(resolver.resolve(url('tone.wav'), 'owner-a', { ...SEPARATION, maxBytes: 1024, maxBytesOption: 'limits.maxDownloadBytes' }), {
      code: 'too_large',
      httpStatus: 413,
      message: 'the file is larger than 1 KiB; at most 1 KiB is accepted (limits.maxDownloadBytes)',
    });
  });
});

describe('InputResolver: uploads', () => {
  it('resolves its own upload locally, by link or upload://, without downloading', async () => {
    const id = await upload('tone.mp3', 'owner-a');
    const hits = server.hits.length;
    for (const link of [`https://va.example.com/api/v1/uploads/${id}`, `upload://${id}`]) {
      const resolved = await resolver.resolve(link, 'owner-a', SEPARATION);
      assert.deepEqual({ id: resolved.blob.id, scratch: resolved.scratch }, { id, scratch: false });
      assert.equal(resolved.probe.container, 'mp3');
    }
    assert.equal(server.hits.length, hits);
  });

  it("answers not_found for another key's upload, an unknown id and an expired upload", async () => {
    const id = await upload('tone.mp3', 'owner-a');
    const expired = await upload('tone.mp3', 'owner-a', new Date(Date.now() - 1000).toISOString());
    for (const [link, owner] of [
      [`https://va.example.com/v1/uploads/${id}`, 'owner-b'],
      ['https://va.example.com/v1/uploads/doesNotExist123', 'owner-a'],
      ['https://va.example.com/v1/uploads/..%2F..%2Fetc', 'owner-a'],
      [`upload://${expired}`, 'owner-a'],
    ] as const) {
      await assert.rejects(resolver.resolve(link, owner, SEPARATION), { code: 'not_found' });
    }
    assert.ok(await blobs.stat(id), "the upload is untouched");
  });

  it('refuses an upload over maxBytes with too_large, giving its size', async () => {
    const id = await upload('tone.wav', 'owner-a');
    const size = (await stat(fx.path('tone.wav'))).size;
    await assert.rejects(resolver.resolve(`upload://${id}`, 'owner-a', { ...SEPARATION, maxBytes: 2048, maxBytesOption: 'limits.maxPhotoBytes' }), {
      code: 'too_large',
      message: `the uploaded file is ${(size / 1024).toFixed(1).replace(/\.0$/, '')} KiB (${size} bytes); at most 2 KiB is accepted (limits.maxPhotoBytes)`,
    });
  });

  it('never deletes an upload that fails the checks', async () => {
    const id = await upload('frame.png', 'owner-a');
    await assert.rejects(resolver.resolve(`upload://${id}`, 'owner-a', SEPARATION), { code: 'not_audio' });
    assert.ok(await blobs.stat(id), 'the upload is still there');
  });
});
