import assert from 'node:assert/strict';
import { chmod, copyFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  MediaBinaryError,
  MediaProbeError,
  MediaProcessError,
  decodeAudio,
  decodeAudioAs,
  encodeAudio,
  probeMedia,
  resolveMediaBinaries,
} from '../../src/inference/media/index.js';
import { SYSTEM_BINARIES, TEST_BINARIES, makeMediaFixtures, type MediaFixtures } from './helpers/media-fixtures.js';

const BINARIES = TEST_BINARIES; // fast static builds; one test below also runs the system binaries

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

let fx: MediaFixtures;
before(async () => {
  fx = await makeMediaFixtures();
});
after(async () => {
  await fx.cleanup();
});

describe('resolveMediaBinaries', () => {
  it('lets an explicit path win over env and PATH', async () => {
    const fake = join(fx.dir, 'my-ffmpeg');
    await writeFile(fake, '#!/bin/sh\n');
    await chmod(fake, 0o755);
    const bins = await resolveMediaBinaries({ ffmpegPath: fake, env: { FFMPEG_PATH: '/usr/bin/ffmpeg', PATH: '/usr/bin' } });
    assert.equal(bins.ffmpegPath, fake);
    assert.equal(bins.source.ffmpeg, 'option');
    assert.equal(bins.ffprobePath, '/usr/bin/ffprobe');
    assert.equal(bins.source.ffprobe, 'system');
  });

  it('takes FFPROBE_PATH from the environment before PATH', async () => {
    const fake = join(fx.dir, 'my-ffprobe');
    await writeFile(fake, '#!/bin/sh\n');
    await chmod(fake, 0o755);
    const bins = await resolveMediaBinaries({ env: { FFPROBE_PATH: fake, PATH: '/usr/bin' } });
    assert.deepEqual(bins.source, { ffmpeg: 'system', ffprobe: 'env' });
    assert.equal(bins.ffprobePath, fake);
  });

  it('rejects an explicit path that is not executable', async () => {
    const plain = join(fx.dir, 'not-executable');
    await writeFile(plain, 'x');
    await assert.rejects(resolveMediaBinaries({ ffmpegPath: plain }), MediaBinaryError);
  });

  it('falls back to the installer packages when nothing is on PATH', async () => {
    const bins = await resolveMediaBinaries({ env: { PATH: fx.dir } });
    assert.deepEqual(bins.source, { ffmpeg: 'package', ffprobe: 'package' });
    assert.match(bins.ffmpegPath, /@ffmpeg-installer/);
  });
});

describe('probeMedia', () => {
  const cases = [
    ['tone.wav', 'wav'],
    ['tone.mp3', 'mp3'],
    ['clip.mp4', 'mp4'],
    ['clip.mov', 'mov'],
    ['tone.ogg', 'other'],
    ['tone.flac', 'other'],
    ['frame.png', 'other'],
  ] as const;
  for (const [name, container] of cases) {
    it(`classifies ${name} as ${container} from content`, async () => {
      const probe = await probeMedia(fx.path(name), BINARIES);
      assert.equal(probe.container, container);
    });
  }

  it('tells mov from mp4 although ffprobe names the same demuxer', async () => {
    const [mp4, mov] = await Promise.all([probeMedia(fx.path('clip.mp4'), BINARIES), probeMedia(fx.path('clip.mov'), BINARIES)]);
    assert.deepEqual(mp4.formatNames, mov.formatNames);
    assert.equal(mp4.container, 'mp4');
    assert.equal(mov.container, 'mov');
  });

  it('works the same with the system ffprobe and ffmpeg', async () => {
    const [mp4, mov] = await Promise.all([
      probeMedia(fx.path('clip.mp4'), SYSTEM_BINARIES),
      probeMedia(fx.path('clip.mov'), SYSTEM_BINARIES),
    ]);
    assert.deepEqual([mp4.container, mov.container], ['mp4', 'mov']);
    const pcm = await collect(decodeAudio(fx.path('tone.wav'), { sampleRate: 8000, channels: 1 }, SYSTEM_BINARIES));
    assert.ok(Math.abs(pcm.length / 4 - 8000) <= 16);
  });

  it('reports streams and duration', async () => {
    const clip = await probeMedia(fx.path('clip.mp4'), BINARIES);
    assert.ok(Math.abs(clip.durationSec - 1) < 0.2, `duration ${clip.durationSec}`);
    assert.equal(clip.audio?.codec, 'aac');
    assert.deepEqual({ w: clip.video?.width, h: clip.video?.height, fps: clip.video?.fps }, { w: 64, h: 48, fps: 10 });
    const wav = await probeMedia(fx.path('tone.wav'), BINARIES);
    assert.deepEqual(wav.audio, { codec: 'pcm_s16le', sampleRate: 22050, channels: 1 });
    assert.equal(wav.video, undefined);
    const png = await probeMedia(fx.path('frame.png'), BINARIES);
    assert.equal(png.video?.codec, 'png');
    assert.deepEqual(png.streamCounts, { audio: 0, video: 1 });
  });

  it('throws MediaProbeError on a file that is not media, without leaking the path', async () => {
    const junk = join(fx.dir, 'junk');
    await writeFile(junk, 'definitely not media '.repeat(50));
    const error = await probeMedia(junk, BINARIES).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof MediaProbeError);
    assert.doesNotMatch(error.message, new RegExp(fx.dir));
  });

  it('refuses playlist demuxers that would open other files or URLs', async () => {
    // A plain ffprobe would follow this playlist to the segment (it has an allowed .mp3 extension).
    const segment = join(fx.dir, 'segment.mp3');
    await copyFile(fx.path('tone.mp3'), segment);
    const playlist = join(fx.dir, 'playlist.m3u8');
    await writeFile(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n${segment}\n#EXT-X-ENDLIST\n`);
    await assert.rejects(probeMedia(playlist, BINARIES), (e: unknown) =>
      e instanceof MediaProbeError && e.cause instanceof MediaProcessError && /not on whitelist/.test(e.cause.stderrTail),
    );
  });
});

describe('decodeAudio / encodeAudio', () => {
  it('decodes to f32le PCM with the expected number of samples', async () => {
    const pcm = await collect(decodeAudio(fx.path('tone.wav'), { sampleRate: 16000, channels: 2 }, BINARIES));
    assert.equal(pcm.length % 8, 0);
    const frames = pcm.length / 8; // 2 channels x 4 bytes
    assert.ok(Math.abs(frames - 16000) <= 32, `frames ${frames}`);
    const samples = new Float32Array(pcm.buffer, pcm.byteOffset, pcm.length / 4);
    assert.ok(samples.some((s) => Math.abs(s) > 0.05), 'the tone is not silent');
  });

  it('decodes the audio track of a video', async () => {
    const pcm = await collect(decodeAudio(fx.path('clip.mov'), { sampleRate: 8000, channels: 1 }, BINARIES));
    assert.ok(Math.abs(pcm.length / 4 - 8000) <= 1100, `samples ${pcm.length / 4}`);
  });

  it('errors the stream with the stderr tail when ffmpeg fails', async () => {
    const error = await collect(decodeAudio(fx.path('silent-video.mp4'), { sampleRate: 8000, channels: 1 }, BINARIES)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof MediaProcessError, String(error));
    assert.ok(error.stderrTail.length > 0);
  });

  it('decodeAudioAs: one ffmpeg gives each format exactly what decodeAudio gives for it', async () => {
    const formats = [
      { sampleRate: 44100, channels: 2 },
      { sampleRate: 16000, channels: 2 },
      { sampleRate: 8000, channels: 1 },
    ];
    for (const name of ['tone.mp3', 'clip.mov'] as const) {
      const together = await Promise.all(decodeAudioAs(fx.path(name), formats, { maxDurationSec: 0.5 }, BINARIES).map(collect));
      for (const [i, format] of formats.entries()) {
        const alone = await collect(decodeAudio(fx.path(name), { ...format, maxDurationSec: 0.5 }, BINARIES));
        assert.ok(alone.length > 0);
        assert.ok(together[i]!.equals(alone), `${name} at ${format.sampleRate} Hz × ${format.channels}: ${together[i]!.length} vs ${alone.length} bytes`);
      }
    }
  });

  it('decodeAudioAs: every stream errors with ffmpeg\'s failure', async () => {
    const outcomes = await Promise.allSettled(
      decodeAudioAs(fx.path('silent-video.mp4'), [{ sampleRate: 8000, channels: 1 }, { sampleRate: 16000, channels: 1 }], {}, BINARIES).map(collect),
    );
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.ok(outcome.reason instanceof MediaProcessError, String(outcome.reason));
    }
  });

  it('errors the stream when the ffmpeg binary cannot be started', async () => {
    const broken = { ...BINARIES, ffmpegPath: join(fx.dir, 'no-such-ffmpeg') };
    await assert.rejects(collect(decodeAudio(fx.path('tone.wav'), { sampleRate: 8000, channels: 1 }, broken)), MediaProcessError);
  });

  it('round-trips PCM through wav and mp3', async () => {
    for (const format of ['wav', 'mp3'] as const) {
      const outputPath = join(fx.dir, `round-trip.${format}`);
      const source = decodeAudio(fx.path('tone.mp3'), { sampleRate: 22050, channels: 1 }, BINARIES);
      await encodeAudio(source, { sampleRate: 22050, channels: 1, format, outputPath }, BINARIES);
      const probe = await probeMedia(outputPath, BINARIES);
      assert.equal(probe.container, format);
      assert.equal(probe.audio?.sampleRate, 22050);
    }
  });

  it('rejects, removes the output and stops the source when ffmpeg fails', async () => {
    const outputPath = join(fx.dir, 'never.wav');
    const source = decodeAudio(fx.path('tone.wav'), { sampleRate: 8000, channels: 1 }, BINARIES);
    const options = { sampleRate: 8000, channels: 0, format: 'wav', outputPath } as const; // 0 channels: ffmpeg refuses
    await assert.rejects(encodeAudio(source, options, BINARIES), MediaProcessError);
    assert.equal(source.destroyed, true);
    await assert.rejects(stat(outputPath), { code: 'ENOENT' });
  });

  it('rejects and removes the output when the PCM source fails', async () => {
    const outputPath = join(fx.dir, 'broken.wav');
    const source = new Readable({ read() {} });
    source.push(Buffer.alloc(4096));
    setTimeout(() => source.destroy(new Error('source broke')), 20);
    await assert.rejects(encodeAudio(source, { sampleRate: 8000, channels: 1, format: 'wav', outputPath }, BINARIES), /source broke/);
    await assert.rejects(stat(outputPath), { code: 'ENOENT' });
  });
});
