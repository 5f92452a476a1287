import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobProgress } from '../../src/domain/job.js';
import { CanvasAvatarAssetRenderer } from '../../src/inference/avatar/asset-renderer.js';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import type { EngineContext } from '../../src/domain/engines.js';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/binaries.js';
import { openVideoEncoder, videoEncoderArgs } from '../../src/inference/media/encode-video.js';
import { builtIns, ffprobeStreams, FixedSequenceAnalyzer, writeSine } from './helpers.js';
import { ffmpegDescendants } from '../helpers/processes.js';

let dir: string;
let audio: string;
let binaries: MediaBinaries;
let ava: AvatarDefinition;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-encode-'));
  binaries = await resolveMediaBinaries();
  audio = join(dir, 'tone.wav');
  await writeSine(binaries.ffmpegPath, audio, 2);
  ava = (await builtIns()).get('ava')!;
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function context(signal: AbortSignal, onProgress: (p: JobProgress) => void = () => undefined): EngineContext {
  return { signal, onProgress, workDir: dir };
}

test('lip-sync render: one h264 yuv420p stream and one aac stream, as long as the audio within a frame', async () => {
  const out = join(dir, 'talk.mp4');
  const progress: JobProgress[] = [];
  const engine = new CanvasLipSyncEngine(new FixedSequenceAnalyzer(2), { binaries, progressIntervalMs: 0 });
  await engine.render({ audioPath: audio, durationSec: 2, avatar: ava, outputPath: out }, context(new AbortController().signal, (p) => progress.push(p)));

  const streams = await ffprobeStreams(binaries.ffprobePath, out);
  const video = streams.filter((s) => s.codec_type === 'video');
  const sound = streams.filter((s) => s.codec_type === 'audio');
  assert.equal(video.length, 1);
  assert.equal(sound.length, 1);
  assert.equal(video[0]!.codec_name, 'h264');
  assert.equal(video[0]!.pix_fmt, 'yuv420p');
  assert.equal(sound[0]!.codec_name, 'aac');
  assert.equal(Number(video[0]!.nb_frames), 50);
  const audioSec = Number((await ffprobeStreams(binaries.ffprobePath, audio))[0]!.duration);
  assert.ok(Math.abs(Number(video[0]!.duration) - audioSec) <= 1 / ava.fps + 1e-6, `video ${video[0]!.duration} vs audio ${audioSec}`);
  assert.ok(Math.abs(Number(sound[0]!.duration) - audioSec) <= 1 / ava.fps + 1e-6);

  assert.deepEqual(progress.at(-1), { done: 50, total: 50, unit: 'frames' });
  assert.deepEqual(progress[0], { done: 0, total: 50, unit: 'frames' });
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.done >= progress[i - 1]!.done);
  // faststart: the moov atom comes before the media data.
  const head = (await readFile(out)).subarray(0, 4096).toString('latin1');
  assert.ok(head.indexOf('moov') !== -1 && head.indexOf('moov') < (head.indexOf('mdat') === -1 ? Infinity : head.indexOf('mdat')));
});

test('the mp4 carries no more sound than the duration of the job (the decoded length), whatever the file holds', async () => {
  const out = join(dir, 'capped.mp4');
  const engine = new CanvasLipSyncEngine(new FixedSequenceAnalyzer(1), { binaries, progressIntervalMs: 0 });
  await engine.render({ audioPath: audio, durationSec: 1, avatar: ava, outputPath: out }, context(new AbortController().signal));
  const sound = (await ffprobeStreams(binaries.ffprobePath, out)).find((s) => s.codec_type === 'audio')!;
  assert.ok(Number(sound.duration) <= 1 + 1 / ava.fps, `the 2 s recording was muxed for ${sound.duration} s`);
});

test('abort mid-render kills ffmpeg, rejects, and leaves no output', async () => {
  const out = join(dir, 'aborted.mp4');
  const controller = new AbortController();
  const engine = new CanvasLipSyncEngine(new FixedSequenceAnalyzer(2), { binaries, progressIntervalMs: 0 });
  let sawFfmpeg = false;
  let aborting = false;
  const run = engine.render({ audioPath: audio, durationSec: 2, avatar: ava, outputPath: out }, context(controller.signal, (p) => {
    // The first report of a frame in the encoder (frames are reported a few times a second, the first at once).
    if (p.done > 0 && !aborting) {
      aborting = true;
      void ffmpegDescendants().then((pids) => {
        sawFfmpeg = pids.length > 0;
        controller.abort();
      });
    }
  }));
  await assert.rejects(run, { name: 'AbortError' });
  assert.ok(sawFfmpeg, 'ffmpeg was running before the abort');
  await sleep(50);
  assert.deepEqual(await ffmpegDescendants(), []);
  assert.equal(existsSync(out), false);
});

test('an already aborted job rejects before analysing', async () => {
  const controller = new AbortController();
  controller.abort();
  const analyzer = new FixedSequenceAnalyzer(2);
  const engine = new CanvasLipSyncEngine(analyzer, { binaries });
  await assert.rejects(
    engine.render({ audioPath: audio, durationSec: 2, avatar: ava, outputPath: join(dir, 'never.mp4') }, context(controller.signal)),
    { name: 'AbortError' },
  );
  assert.equal(analyzer.calls, 0);
});

test('an unreadable audio file fails the render and removes the partial mp4', async () => {
  const bad = join(dir, 'bad.wav');
  await writeFile(bad, 'not audio at all');
  const out = join(dir, 'bad.mp4');
  const engine = new CanvasLipSyncEngine(new FixedSequenceAnalyzer(0.4), { binaries });
  await assert.rejects(engine.render({ audioPath: bad, durationSec: 0.4, avatar: ava, outputPath: out }, context(new AbortController().signal)), {
    name: 'MediaProcessError',
  });
  assert.equal(existsSync(out), false);
});

test('the encoder refuses frames of the wrong size', async () => {
  const encoder = openVideoEncoder({ width: 64, height: 64, fps: 10, outputPath: join(dir, 'size.mp4') }, binaries);
  await assert.rejects(encoder.write(new Uint8Array(10)), RangeError);
  await encoder.abort();
});

test('catalogue assets: silent idle-loop mp4, full-size preview and 128 px thumbnail PNGs', async () => {
  const renderer = new CanvasAvatarAssetRenderer({ binaries, idleSeconds: 1 });
  const idle = join(dir, 'idle.mp4');
  await renderer.renderIdleVideo(ava, idle);
  const streams = await ffprobeStreams(binaries.ffprobePath, idle);
  assert.deepEqual(streams.map((s) => `${s.codec_type}:${s.codec_name}:${s.pix_fmt}`), ['video:h264:yuv420p']);
  assert.equal(Number(streams[0]!.nb_frames), ava.fps);

  for (const [file, size] of [['preview.png', 512], ['thumb.png', 128]] as const) {
    const path = join(dir, file);
    await (size === 512 ? renderer.renderPreview(ava, path) : renderer.renderThumbnail(ava, path));
    const png = await readFile(path);
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [size, size]);
  }
});

test('x264 refines motion at sub-pixel level 1 unless told otherwise', () => {
  const base = { width: 512, height: 512, fps: 25, outputPath: '/tmp/out.mp4' };
  const value = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
  assert.equal(value(videoEncoderArgs(base), '-x264-params'), 'subme=1');
  assert.equal(value(videoEncoderArgs({ ...base, subme: 7 }), '-x264-params'), 'subme=7');
  assert.equal(value(videoEncoderArgs({ ...base, threads: 3 }), '-threads'), '3');
});

test('the sound is coded with AAC twoloop unless told fast, and another coder is refused', async (t) => {
  const base = { width: 64, height: 64, fps: 25, outputPath: '/tmp/out.mp4', audioPath: '/tmp/in.wav' };
  const value = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
  assert.equal(value(videoEncoderArgs(base), '-aac_coder'), 'twoloop');
  assert.equal(value(videoEncoderArgs({ ...base, aacCoder: 'fast' }), '-aac_coder'), 'fast');
  assert.throws(() => videoEncoderArgs({ ...base, aacCoder: 'anmr' as 'fast' }), /aacCoder must be 'twoloop' or 'fast'/);
  assert.equal(videoEncoderArgs({ ...base, audioPath: undefined }).includes('-aac_coder'), false);
  // Both coders make a playable AAC stream with ffmpeg.
  const dir = await mkdtemp(join(tmpdir(), 'va-aac-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const audioPath = join(dir, 'tone.wav');
  await writeSine(binaries.ffmpegPath, audioPath, 1);
  for (const aacCoder of ['twoloop', 'fast'] as const) {
    const outputPath = join(dir, `${aacCoder}.mp4`);
    const encoder = openVideoEncoder({ width: 64, height: 64, fps: 25, pixelFormat: 'rgba', audioPath, outputPath, aacCoder }, binaries);
    for (let i = 0; i < 25; i++) await encoder.write(new Uint8Array(64 * 64 * 4).fill(128));
    await encoder.finish();
    const streams = await ffprobeStreams(binaries.ffprobePath, outputPath);
    assert.deepEqual(streams.map((stream) => stream.codec_name).sort(), ['aac', 'h264'], aacCoder);
  }
});
