/**
 * Photo avatar renderer bench (part of `npm run bench photo`), on the astronaut portrait (test/photo/fixtures):
 * - the whole lip-sync job at 512×512 with a photo (BENCH_PHOTO_SECONDS of espeak-ng speech, default 60; frames
 *   drawn on the frame worker, H.264) against the time to encode as many frames of the covered photo alone with
 *   the same ffmpeg settings (the encoder's own limit), alternating BENCH_PHOTO_ROUNDS times (default 3), medians
 *   compared (target ≤ 1.5×); the same job with the first drawn (cartoon) avatar in the same rounds, for
 *   reference (the machine's load moves both alike); and the drawing alone;
 * - identity: SSIM of frames in silence (blinks and head motion included) against the covered photo (target ≥ 0.95);
 * - lips: correlation of the mouth region's motion with the speech loudness per frame (target ≥ 0.6), and the
 *   mouth's largest motion in a pause between two phrases (rests: ≈ 0).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { RESTING_MOUTH, type MouthShape } from '../src/inference/lipsync/mouth.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { openVideoEncoder } from '../src/inference/media/encode-video.js';
import { resolveMediaBinaries } from '../src/inference/media/index.js';
import { loadAvatarDefinitions } from '../src/inference/avatar/catalogue-definitions.js';
import { photoDefinition, PhotoFrameRenderer } from '../src/inference/photo/index.js';
import { regionDiff } from '../test/avatar/helpers.js';
import { astronaut, correlation, mouthRegion, speechWithPause, ssim } from '../test/photo/helpers.js';
import type { BenchSection } from './lib/settings.js';
import { measured } from './lib/measure.js';
import { median, round } from './lib/stats.js';
import { makeSpeech } from './lipsync/speech.js';

const SECONDS = Number(process.env.BENCH_PHOTO_SECONDS ?? 60);
const ROUNDS = Math.max(1, Number(process.env.BENCH_PHOTO_ROUNDS ?? 3));
const SIZE = { width: 512, height: 512 };

/** Wall seconds of `work`. */
const timed = async (work: () => Promise<unknown>) => (await measured(work)).wall;

export const photoRenderBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-photo-'));
  try {
    const binaries = await resolveMediaBinaries();
    const face = astronaut();
    const definition = photoDefinition(face, 25, SIZE);
    const analyzer = new OnnxMouthAnalyzer({ binaries });
    const signal = new AbortController().signal;
    const context = { signal, onProgress: () => undefined, workDir: dir };

    // Speed: the whole job against the encoder's limit, alternating.
    const audioPath = await makeSpeech(dir, SECONDS, binaries.ffmpegPath);
    const frames = Math.ceil(SECONDS * definition.fps);
    const job = () =>
      timed(() =>
        new CanvasLipSyncEngine(analyzer, { binaries }).render(
          { audioPath, durationSec: SECONDS, avatar: definition, photo: face, outputPath: join(dir, 'job.mp4') },
          context,
        ),
      );
    const renderer = await PhotoFrameRenderer.create(definition, face);
    const still = renderer.base;
    const staticEncode = () =>
      timed(async () => {
        const encoder = openVideoEncoder({ ...SIZE, fps: definition.fps, audioPath, outputPath: join(dir, 'static.mp4') }, binaries);
        for (let i = 0; i < frames; i++) await encoder.write(still);
        await encoder.finish();
      });
    const [cartoon] = await loadAvatarDefinitions();
    if (!cartoon) throw new Error('no avatar definitions');
    const cartoonJob = () =>
      timed(() =>
        new CanvasLipSyncEngine(analyzer, { binaries }).render(
          { audioPath, durationSec: SECONDS, avatar: cartoon, outputSize: SIZE, outputPath: join(dir, 'cartoon.mp4') },
          context,
        ),
      );
    const jobRuns: number[] = [];
    const staticRuns: number[] = [];
    const cartoonRuns: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      jobRuns.push(await job());
      staticRuns.push(await staticEncode());
      cartoonRuns.push(await cartoonJob());
    }
    const track = await analyzer.analyze(audioPath, definition.fps, signal, SECONDS);
    const frame = new Uint8Array(SIZE.width * SIZE.height * 4);
    // Drawing alone, in CPU time of this thread (the machine's other load does not count).
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < frames; i++) renderer.renderInto(i, track[i] ?? RESTING_MOUTH, frame);
    const cpu = process.cpuUsage(cpuStart);
    const drawing = (cpu.user + cpu.system) / 1e6;
    const whole = median(jobRuns);
    const limit = median(staticRuns);
    emit({
      bench: 'photo-render',
      scenario: 'whole job vs encoder limit',
      size: `${SIZE.width}x${SIZE.height}`,
      audioSeconds: SECONDS,
      frames,
      wholeJobSeconds: round(whole),
      wholeJobRtf: round(whole / SECONDS),
      staticEncodeSeconds: round(limit),
      wholeJobVsEncoderLimit: round(whole / limit),
      drawingCpuMsPerFrame: round((drawing * 1000) / frames),
      cartoonWholeJobVsEncoderLimit: round(median(cartoonRuns) / limit),
      rounds: ROUNDS,
      wholeJobRuns: jobRuns.map(round),
      staticEncodeRuns: staticRuns.map(round),
      cartoonWholeJobRuns: cartoonRuns.map(round),
      target: 'wholeJobVsEncoderLimit <= 1.5',
    });

    // Identity: frames in silence (10 s: blinks and head motion) against the covered photo.
    const silent = await PhotoFrameRenderer.create(definition, face);
    const scores: number[] = [];
    for (let i = 0; i < 250; i++) {
      silent.renderInto(i, RESTING_MOUTH, frame);
      if (i % 5 === 0) scores.push(ssim(frame, silent.base, SIZE.width, SIZE.height));
    }
    emit({
      bench: 'photo-render',
      scenario: 'identity in silence',
      frames: scores.length,
      ssimMedian: round(median(scores)),
      ssimMin: round(Math.min(...scores)),
      target: 'ssimMedian >= 0.95',
    });

    // Lips: mouth motion (against the same frame with the mouth at rest) vs loudness, and the pause.
    const speech = speechWithPause(dir, 'Good evening, here is the news from the city.', 'Markets were calm, and the weather stayed warm.');
    const lipTrack: MouthShape[] = await analyzer.analyze(speech.path, definition.fps, signal, speech.durationSec);
    const talking = await PhotoFrameRenderer.create(definition, face);
    const resting = await PhotoFrameRenderer.create(definition, face);
    const region = mouthRegion(talking.mesh);
    const restFrame = new Uint8Array(frame.length);
    const motion = lipTrack.map((mouth, i) => {
      talking.renderInto(i, mouth, frame);
      resting.renderInto(i, RESTING_MOUTH, restFrame);
      return regionDiff(frame, restFrame, SIZE.width, ...region);
    });
    const loudness = speech.loudness(definition.fps).slice(0, motion.length);
    const [from, to] = speech.pause;
    const pause = motion.slice(Math.ceil((from + 0.5) * definition.fps), Math.floor((to - 0.1) * definition.fps));
    emit({
      bench: 'photo-render',
      scenario: 'lips follow speech',
      frames: motion.length,
      motionLoudnessCorrelation: round(correlation(motion, loudness)),
      speechMotionMedian: round(median(motion.filter((_, i) => loudness[i]! > -40))),
      pauseMotionMax: round(Math.max(...pause)),
      target: 'motionLoudnessCorrelation >= 0.6, pauseMotionMax ≈ 0',
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
