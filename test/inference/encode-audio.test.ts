/**
 * encodeAudio settles, leaving no ffmpeg behind, however early its PCM source fails: fluent-ffmpeg probes ffmpeg's
 * formats and encoders (once per process) before it spawns the encoder and only then listens to the source, so a
 * source that failed meanwhile used to leave the promise pending forever and an ffmpeg waiting on its stdin.
 *
 * The first test must stay the first encodeAudio call of this process (fluent-ffmpeg caches the probe), and runs
 * through an ffmpeg that starts 300 ms late, so the source surely fails before the encoder is spawned.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { encodeAudio, MediaProcessError, type MediaBinaries } from '../../src/inference/media/index.js';
import { TEST_BINARIES } from '../input/helpers/media-fixtures.js';
import { ffmpegDescendants } from '../helpers/processes.js';

const FORMAT = { sampleRate: 8000, channels: 1 } as const;

/** PCM that never ends (ffmpeg waits for more), unless `destroy`ed. */
const endlessPcm = () => {
  const source = new Readable({ read() {} });
  source.push(Buffer.alloc(4096));
  return source;
};

/** `promise`'s rejection, failing the test when it has not settled within `ms`. */
async function rejection(promise: Promise<unknown>, ms = 5_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise.then(() => assert.fail('encodeAudio resolved')), late]).catch((error: unknown) => {
      if (error instanceof Error && error.message.startsWith('still pending')) throw error;
      return error;
    });
  } finally {
    clearTimeout(timer);
  }
}

describe('encodeAudio with a PCM source that fails early', () => {
  let dir: string;
  let slow: MediaBinaries;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'va-encode-'));
    const wrapper = join(dir, 'slow-ffmpeg');
    await writeFile(wrapper, `#!/bin/sh\nsleep 0.3\nexec '${TEST_BINARIES.ffmpegPath}' "$@"\n`);
    await chmod(wrapper, 0o755);
    slow = { ...TEST_BINARIES, ffmpegPath: wrapper };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** No ffmpeg is left below this process, and no file (partial or not) in the folder but the wrapper. */
  const assertNothingLeft = async () => {
    assert.deepEqual(await ffmpegDescendants(), [], 'an ffmpeg process is left');
    assert.deepEqual(await readdir(dir), ['slow-ffmpeg']);
  };

  it('rejects with the source error when the source is destroyed 20 ms in, before ffmpeg started', async () => {
    const source = endlessPcm();
    setTimeout(() => source.destroy(new Error('source broke')), 20);
    const error = await rejection(encodeAudio(source, { ...FORMAT, format: 'wav', outputPath: join(dir, 'early.wav') }, slow));
    assert.match(String(error), /source broke/);
    await assertNothingLeft();
  });

  it('rejects with the source error when the source fails while ffmpeg runs', async () => {
    const source = endlessPcm();
    setTimeout(() => source.destroy(new Error('source broke later')), 500);
    const error = await rejection(encodeAudio(source, { ...FORMAT, format: 'mp3', outputPath: join(dir, 'later.mp3') }, slow));
    assert.match(String(error), /source broke later/);
    await assertNothingLeft();
  });

  it('rejects when the source is destroyed without an error (it closed before its end)', async () => {
    const source = endlessPcm();
    setTimeout(() => source.destroy(), 20);
    const error = await rejection(encodeAudio(source, { ...FORMAT, format: 'wav', outputPath: join(dir, 'closed.wav') }, slow));
    assert.match(String(error), /premature close/i);
    await assertNothingLeft();
  });

  it('rejects when the source was destroyed before the call', async () => {
    const source = endlessPcm();
    source.destroy(new Error('already broken'));
    const error = await rejection(encodeAudio(source, { ...FORMAT, format: 'wav', outputPath: join(dir, 'dead.wav') }, slow));
    assert.match(String(error), /already broken/);
    await assertNothingLeft();
  });

  it('rejects, and stops ffmpeg, when the signal was aborted before the call', async () => {
    const source = endlessPcm();
    const error = await rejection(
      encodeAudio(source, { ...FORMAT, format: 'wav', outputPath: join(dir, 'aborted.wav'), signal: AbortSignal.abort() }, slow),
    );
    assert.ok(error instanceof MediaProcessError, String(error));
    assert.equal(source.destroyed, true);
    await assertNothingLeft();
  });
});
