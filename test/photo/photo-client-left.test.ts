/**
 * A portrait posted to POST /v2/avatar whose client leaves while it waits for the face detector (one detection at a
 * time, keys in turn) is dropped from the detection queue: the detector never sees it. Before, it was detected once
 * its turn came, for nobody. Over Express and Koa, with a face detector double that holds its detections.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FaceDetection } from '../../src/domain/avatar/photo.js';
import { ADAPTERS, KEYS, makeApp, SUITE_TIMEOUT_MS, type TestApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/checks.js';
import { FakeFaceDetector, FakePhotoRenderer, makePortraits } from '../helpers/photo-doubles.js';

/** The face detector double, whose detections wait until {@link HeldFaceDetector.release}. */
class HeldFaceDetector extends FakeFaceDetector {
  private gate?: Promise<void>;
  private open?: () => void;

  hold(): void {
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  override async detect(imagePath: string): Promise<FaceDetection> {
    const detection = super.detect(imagePath);
    await this.gate;
    return detection;
  }
}

/** POST /v2/avatar with `png` as its multipart `file`, by node:http so that the client can leave. */
function postPortrait(origin: string, key: string, png: Buffer) {
  const boundary = `----portrait${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="portrait.png"\r\nContent-Type: image/png\r\n\r\n`),
    png,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const req = httpRequest(`${origin}/v2/avatar`, { method: 'POST', agent: false, headers: { key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) } });
  const status = new Promise<number | Error>((resolve) => {
    req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)));
    req.on('error', resolve);
  });
  req.end(body);
  return { status, leave: () => req.destroy() };
}

let dir: string;
let png: Buffer;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-photo-client-left-'));
  await makePortraits(dir);
  png = await readFile(join(dir, 'portrait.png'));
});
after(() => rm(dir, { recursive: true, force: true }));

for (const adapter of ADAPTERS) {
  describe(`a portrait whose client leaves while it waits for the face detector, over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    const detector = new HeldFaceDetector();
    let app: TestApp;
    before(async () => {
      app = await makeApp(adapter, { backends: { faceDetector: detector, photoRenderer: new FakePhotoRenderer() } });
    });
    after(() => app?.close());

    it('is never detected', async () => {
      detector.hold();
      const detecting = postPortrait(app.origin, KEYS.a, png);
      await waitFor('the first detection', async () => (detector.calls === 1 ? true : undefined));
      const leaving = postPortrait(app.origin, KEYS.a, png);
      // Received, stored and waiting for the detector (the first detection holds it).
      await new Promise((resolve) => setTimeout(resolve, 300));
      leaving.leave();
      assert.ok((await leaving.status) instanceof Error, 'the client left before any answer');
      detector.release();
      assert.equal(await detecting.status, 201);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(detector.calls, 1, 'the portrait of the client that left was not detected');
    });
  });
}
