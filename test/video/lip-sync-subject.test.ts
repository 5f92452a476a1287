/**
 * A video avatar's files for a job (`videoAssets.lipSync`): the prepared clip, the face data and the atlas are copied
 * at once (from S3, a download each), not one after another.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BlobRef } from '../../src/domain/job.js';
import { videoAssets } from '../../src/core/avatars/asset-kinds/video.js';

const blob = (id: string): BlobRef => ({ id, contentType: 'application/octet-stream', size: 1 });

describe('a video avatar lip-sync subject', () => {
  it('asks for its three files together, and names each as asked', async () => {
    const asked: string[] = [];
    const waiting: Array<() => void> = [];
    // Each copy finishes only once all three were asked for: asked one after another, the subject never comes.
    const localFile = (ref: BlobRef, what: string) =>
      new Promise<string>((resolve) => {
        asked.push(what);
        waiting.push(() => resolve(`/work/${ref.id}`));
        if (waiting.length === 3) for (const done of waiting) done();
      });
    const source = { asset: 'video' as const, clip: blob('upload'), width: 360, height: 288, fps: 24 };
    const assets = { video: blob('clip'), preview: blob('preview'), thumbnail: blob('thumb'), face: blob('face'), atlas: blob('atlas') };
    let timer: NodeJS.Timeout | undefined;
    const subject = await Promise.race([
      videoAssets.lipSync(source, localFile, assets),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`copies asked one by one: ${asked.join(', ')}`)), 2_000))),
    ]).finally(() => clearTimeout(timer));
    assert.deepEqual(asked.sort(), ['face data', 'mouth atlas', 'prepared clip']);
    assert.deepEqual(subject.video, { fps: 24, clipPath: '/work/clip', facePath: '/work/face', atlasPath: '/work/atlas' });
  });
});
