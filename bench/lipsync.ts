/**
 * Lip-sync bench, at each frame size of BENCH_LIPSYNC_SIZES (default `512x512,1280x720,1920x1080`) and 25 fps,
 * for BENCH_LIPSYNC_SECONDS of speech (default 20):
 *
 * - the whole job (analysis, drawing on the frame worker, encoding; frames go to ffmpeg as yuv420p, the engine's
 *   default) against the encoder's own limit: the same number of frames of one static image through ffmpeg with
 *   the same settings and the same input format, at the same size, encoded by a child process at the engines'
 *   priority (nice 10, as the job's frame worker and its ffmpeg: on a machine other work loads, a still image
 *   encoded at nice 0 got several times the job's share of the CPU). Both alternate BENCH_LIPSYNC_ROUNDS times
 *   (default 3; 0 skips the timings) with the RGBA pipeline (frames as RGBA, ffmpeg converting them, as before yuv420p frames) and its
 *   own static limit; each figure is the median of its rounds (`wholeJobVsEncoderLimitPaired`: the median of each
 *   round's job ÷ that round's still image, which the machine's drift between rounds disturbs less;
 *   `pairedInterval`, a 95 % interval for that median from the rounds alone, and `pairedVerdict`, whether it meets
 *   the target, misses it, or the spread between rounds on this machine covers the target: 6 rounds at least give a
 *   95 % interval). Wall time (the real-time factor: processing time ÷ audio time, below 1 is faster than real time)
 *   and CPU time (this process's threads plus ffmpeg's, which is what a shared machine's noise disturbs least) are
 *   both reported;
 * - the drawing alone on one thread (CPU time ÷ audio time) and the analysis alone (median of 3 after a first, cold one:
 *   `analysisColdRtf`, which starts the analysis worker);
 * - what the encoder alone costs for the job's moving pictures: the job's first BENCH_LIPSYNC_CONTENT_SECONDS (default
 *   5; they are held in memory, 390 MB at 1920×1080) of frames, drawn beforehand, encoded with the same settings,
 *   against the same number of frames of the still image (3 alternating rounds, medians):
 *   `content.encodeVsStaticEncode`. With the drawing's CPU time, `content.cpuBoundVsStaticEncode` is the ratio a
 *   job would reach if the encoder's and the drawing's CPU time were spread perfectly over the machine's cores (never
 *   below the content's own encode; the analysis, RTF < 0.01, is left out): what scheduling alone cannot beat;
 * - `cpuMsPerFrame`: CPU milliseconds per frame of each stage: the analysis (its child and ffmpeg), the drawing
 *   (composing RGBA frames on one thread), the RGBA→yuv420p conversion (drawing yuv420p frames less drawing RGBA
 *   ones), the pipe (writing the frames into a pipe that `cat` empties, both ends), the encoder (ffmpeg on the
 *   job's own frames: reading them, x264, the audio, the mp4) against the still image's encode, and the whole job;
 * - `wholeJobCpuMsPerFrameByProcess`: the whole job's CPU split by process, read from /proc around each round (see
 *   lipsync/stage-cpu.ts): the host, the frame child (drawing, converting, writing the pipe), its ffmpeg (the
 *   encoder), the analysis child and its ffmpeg (the decoder);
 * - then peak memory of whole jobs of BENCH_LIPSYNC_MEMORY_SECONDS (default `30,300`) of speech at each size, each
 *   in its own process: the peak sum of the resident sets of that process (worker threads included) and its
 *   ffmpeg, sampled from /proc, and each one's own peak (an empty BENCH_LIPSYNC_MEMORY_SECONDS skips it).
 *
 * One JSON line per size (`lipsync`) and per memory run (`lipsync-memory`).
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveMediaBinaries, type MediaBinaries } from '../src/inference/media/index.js';
import { openVideoEncoder } from '../src/inference/media/encode-video.js';
import { rawFrameBytes, type RawVideoFormat } from '../src/inference/media/raw-video.js';
import { FrameRenderer } from '../src/inference/render/frame-renderer.js';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { RESTING_MOUTH, type MouthShape } from '../src/inference/lipsync/mouth.js';
import { loadAvatarDefinitions } from '../src/inference/avatar/catalogue-definitions.js';
import type { AvatarDefinition } from '../src/domain/avatar/definition.js';
import type { BenchSection } from './lib/settings.js';
import { measured, type Cost } from './lib/measure.js';
import { median, medianInterval, round, verdictAtMost, type MedianInterval } from './lib/stats.js';
import { cpuSeconds } from './lipsync/cpu-time.js';
import { stageCpu, stageDelta, type StageCpu } from './lipsync/stage-cpu.js';
import { makeSpeech } from './lipsync/speech.js';
import { sampleTreeMemory } from './lipsync/tree-memory.js';
import { StillEncoder } from './lipsync/still-encoder.js';

const SECONDS = Number(process.env.BENCH_LIPSYNC_SECONDS ?? 20);
const CONTENT_SECONDS = Math.min(SECONDS, Number(process.env.BENCH_LIPSYNC_CONTENT_SECONDS ?? 5));
const ROUNDS = Math.max(0, Number(process.env.BENCH_LIPSYNC_ROUNDS ?? 3));
const list = (value: string) => value.split(',').map((item) => item.trim()).filter((item) => item !== '');
const MEMORY_SECONDS = list(process.env.BENCH_LIPSYNC_MEMORY_SECONDS ?? '30,300').map(Number);
/** Frame sizes to measure, `WIDTHxHEIGHT` each. */
const SIZES = list(process.env.BENCH_LIPSYNC_SIZES ?? '512x512,1280x720,1920x1080').map((item) => {
  const match = /^(\d+)x(\d+)$/.exec(item);
  if (!match) throw new Error(`BENCH_LIPSYNC_SIZES: ${item} is not WIDTHxHEIGHT`);
  return { width: Number(match[1]), height: Number(match[2]) };
});


export const lipSyncBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-lipsync-'));
  const stillEncoder = new StillEncoder();
  try {
    const binaries = await resolveMediaBinaries();
    const [avatar] = await loadAvatarDefinitions();
    if (!avatar) throw new Error('no avatar definitions');
    for (const seconds of MEMORY_SECONDS) {
      const speech = await makeSpeech(dir, seconds, binaries.ffmpegPath);
      for (const size of SIZES) emit(await memoryRun(speech, seconds, size));
    }
    if (ROUNDS === 0) return;
    const audioPath = await makeSpeech(dir, SECONDS, binaries.ffmpegPath);
    const analyzer = new OnnxMouthAnalyzer({ binaries });
    const signal = new AbortController().signal;
    let track: MouthShape[] = [];
    // The first analysis starts the analysis worker and compiles its code (reported as `analysisColdRtf`); the
    // analysis of a job is the median of three after it.
    const analyze = () =>
      measured(async () => {
        track = await analyzer.analyze(audioPath, avatar.fps, signal);
      });
    const analysisCold = await analyze();
    const analysisRuns = [await analyze(), await analyze(), await analyze()];
    const analysis = { wall: median(analysisRuns.map((run) => run.wall)), cpu: median(analysisRuns.map((run) => run.cpu)) };
    for (const size of SIZES) {
      const scenario = { audioPath, avatar, size, binaries, analyzer, dir, stillEncoder };
      const runs: Record<'job' | 'still' | 'rgbaJob' | 'rgbaStill', Cost[]> = { job: [], still: [], rgbaJob: [], rgbaStill: [] };
      const stages: StageCpu[] = [];
      // Unmeasured: the first job at a size starts the frame worker and draws the avatar's layers for it.
      await wholeJob(scenario, 'yuv420p');
      const loadBefore = loadavg()[0]!;
      // The machine's speed drifts (shared cores): the measurements alternate, ROUNDS times, and each is
      // reported as its median.
      for (let r = 0; r < ROUNDS; r++) {
        const before = stageCpu();
        runs.job.push(await wholeJob(scenario, 'yuv420p'));
        stages.push(stageDelta(before, stageCpu()));
        runs.still.push(await staticEncode(scenario, 'yuv420p'));
        runs.rgbaJob.push(await wholeJob(scenario, 'rgba'));
        runs.rgbaStill.push(await staticEncode(scenario, 'rgba'));
      }
      const wall = (costs: Cost[]) => median(costs.map((cost) => cost.wall));
      const cpu = (costs: Cost[]) => median(costs.map((cost) => cost.cpu));
      const job = wall(runs.job);
      const paired = pairedRatios(runs.job, runs.still);
      const pairedInterval = medianInterval(paired);
      const drawing = drawingCpu(avatar, size, track, 'yuv420p');
      const rgbaDrawing = drawingCpu(avatar, size, track, 'rgba');
      const content = await contentEncode(scenario, track, drawing);
      const frames = Math.ceil(SECONDS * avatar.fps);
      const pipe = await pipeCpu(size, frames);
      const perFrame = (seconds: number) => round((seconds * 1000) / frames);
      emit({
        bench: 'lipsync',
        audioSeconds: SECONDS,
        size: `${size.width}x${size.height}`,
        fps: avatar.fps,
        frames: Math.ceil(SECONDS * avatar.fps),
        frameFormat: 'yuv420p',
        wholeJobSeconds: round(job),
        wholeJobRtf: round(job / SECONDS),
        timesFasterThanRealTime: round(SECONDS / job),
        staticEncodeSeconds: round(wall(runs.still)),
        staticEncodeRtf: round(wall(runs.still) / SECONDS),
        wholeJobVsEncoderLimit: round(job / wall(runs.still)),
        // Each round's job against the still image encoded right after it: the machine's speed drifts between rounds
        // (a still image's rounds went from 1.60 to 2.06 s in one run), which the ratio of medians mixes in.
        wholeJobVsEncoderLimitPaired: round(median(paired)),
        pairedRatios: paired.map((ratio) => round(ratio)),
        // Where the median of the rounds' ratios lies (95 %, from the rounds alone), and whether that meets the target
        // or the spread between rounds on this machine covers it.
        pairedInterval: roundedInterval(pairedInterval),
        pairedVerdict: verdictAtMost(pairedInterval, targetRatio(size)),
        wholeJobCpuSeconds: round(cpu(runs.job)),
        staticEncodeCpuSeconds: round(cpu(runs.still)),
        wholeJobCpuVsEncoderLimit: round(cpu(runs.job) / cpu(runs.still)),
        analysisRtf: round(analysis.wall / SECONDS),
        analysisColdRtf: round(analysisCold.wall / SECONDS),
        drawingCpuRtf: round(drawing / SECONDS),
        content,
        cpuMsPerFrame: {
          analysis: perFrame(analysis.cpu),
          drawing: perFrame(rgbaDrawing),
          conversion: perFrame(Math.max(0, drawing - rgbaDrawing)),
          pipe: perFrame(pipe),
          encoder: content.encodeCpuMsPerFrame,
          stillEncoder: perFrame(cpu(runs.still)),
          wholeJob: perFrame(cpu(runs.job)),
        },
        // The whole job's own CPU by process (medians over its rounds): drawing is the frame child, x264 its ffmpeg.
        wholeJobCpuMsPerFrameByProcess: Object.fromEntries(
          (Object.keys(stages[0] ?? {}) as (keyof StageCpu)[]).map((stage) => [stage, perFrame(median(stages.map((s) => s[stage])))]),
        ),
        rgba: {
          wholeJobRtf: round(wall(runs.rgbaJob) / SECONDS),
          staticEncodeRtf: round(wall(runs.rgbaStill) / SECONDS),
          wholeJobVsEncoderLimit: round(wall(runs.rgbaJob) / wall(runs.rgbaStill)),
          wholeJobCpuSeconds: round(cpu(runs.rgbaJob)),
          staticEncodeCpuSeconds: round(cpu(runs.rgbaStill)),
          drawingCpuRtf: round(rgbaDrawing / SECONDS),
        },
        yuvJobVsRgbaJob: round(job / wall(runs.rgbaJob)),
        yuvJobCpuVsRgbaJobCpu: round(cpu(runs.job) / cpu(runs.rgbaJob)),
        rounds: ROUNDS,
        runs: Object.fromEntries(Object.entries(runs).map(([name, costs]) => [name, costs.map((c) => [round(c.wall), round(c.cpu)])])),
        loadAverage: [round(loadBefore), round(loadavg()[0]!)],
        target: 'wholeJobVsEncoderLimit <= 1.3 (1.5 at 1920x1080); timesFasterThanRealTime >= 2 at 1280x720 and 1920x1080',
      });
    }
  } finally {
    stillEncoder.close();
    await rm(dir, { recursive: true, force: true });
  }
};

/** What one size's measurements share. */
interface Scenario {
  audioPath: string;
  avatar: AvatarDefinition;
  size: { width: number; height: number };
  binaries: MediaBinaries;
  analyzer: OnnxMouthAnalyzer;
  dir: string;
  stillEncoder: StillEncoder;
}

/** The target for the whole job ÷ the still image at `size` (issue #24). */
function targetRatio(size: { width: number; height: number }): number {
  return size.width * size.height >= 1920 * 1080 ? 1.5 : 1.3;
}

/** `interval` with its figures rounded for a bench line. */
function roundedInterval({ low, high, level }: MedianInterval): MedianInterval {
  return { low: round(low), high: round(high), level: round(level) };
}

/** Each round's wall time in `a` divided by the same round's in `b`. */
function pairedRatios(a: Cost[], b: Cost[]): number[] {
  return a.map((cost, i) => cost.wall / b[i]!.wall);
}

/** A whole job as the server runs it (frame worker, analysis on its worker), frames sent to ffmpeg as `format`. */
function wholeJob({ audioPath, avatar, size, binaries, analyzer, dir }: Scenario, format: RawVideoFormat): Promise<Cost> {
  const engine = new CanvasLipSyncEngine(analyzer, { binaries, frameFormat: format });
  const context = { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir };
  return measured(() =>
    engine.render({ audioPath, durationSec: SECONDS, avatar, outputSize: size, outputPath: join(dir, `job-${format}.mp4`) }, context),
  );
}

/**
 * The encoder's cost for the job's own frames: the first {@link CONTENT_SECONDS} of them drawn into memory first,
 * then encoded, against the still image's encode of as many frames (3 alternating rounds, medians); and the bound a
 * perfect spread of the encoder's and the drawing's CPU time over the machine's cores would give.
 */
async function contentEncode({ audioPath, avatar, size, binaries, dir }: Scenario, track: MouthShape[], drawingCpuSeconds: number) {
  const count = Math.ceil(CONTENT_SECONDS * avatar.fps);
  const renderer = new FrameRenderer({ ...avatar, ...size });
  const frames = Array.from({ length: count }, (_, i) => {
    const frame = new Uint8Array(rawFrameBytes('yuv420p', size.width, size.height));
    renderer.renderFormatInto('yuv420p', i, track[i] ?? RESTING_MOUTH, frame);
    return frame;
  });
  // The still image of {@link staticEncode}: frame 0 at rest.
  const image = new Uint8Array(rawFrameBytes('yuv420p', size.width, size.height));
  new FrameRenderer({ ...avatar, ...size }).renderFormatInto('yuv420p', 0, RESTING_MOUTH, image);
  const encode = (frameAt: (i: number) => Uint8Array, name: string) =>
    measured(async () => {
      const encoder = openVideoEncoder(
        { ...size, fps: avatar.fps, pixelFormat: 'yuv420p', audioPath, audioMaxSec: CONTENT_SECONDS, outputPath: join(dir, `${name}.mp4`) },
        binaries,
      );
      for (let i = 0; i < count; i++) await encoder.write(frameAt(i));
      await encoder.finish();
    });
  const moving: Cost[] = [];
  const still: Cost[] = [];
  for (let r = 0; r < 3; r++) {
    moving.push(await encode((i) => frames[i]!, 'content'));
    still.push(await encode(() => image, 'content-still'));
  }
  const wall = (costs: Cost[]) => median(costs.map((cost) => cost.wall));
  const cpu = (costs: Cost[]) => median(costs.map((cost) => cost.cpu));
  const drawing = drawingCpuSeconds * (CONTENT_SECONDS / SECONDS);
  const bound = Math.max(wall(moving), (cpu(moving) + drawing) / availableParallelism());
  return {
    seconds: CONTENT_SECONDS,
    encodeSeconds: round(wall(moving)),
    staticEncodeSeconds: round(wall(still)),
    encodeVsStaticEncode: round(wall(moving) / wall(still)),
    encodeCpuVsStaticEncodeCpu: round(cpu(moving) / cpu(still)),
    cpuBoundVsStaticEncode: round(bound / wall(still)),
    encodeCpuMsPerFrame: round((cpu(moving) * 1000) / count),
    cores: availableParallelism(),
  };
}

/**
 * The encoder's limit: the job's number of frames of one still image, with the job's settings and audio, encoded by
 * the still-image child at the engines' priority (see still-child.ts).
 */
async function staticEncode({ audioPath, avatar, size, dir, stillEncoder }: Scenario, format: RawVideoFormat): Promise<Cost> {
  await stillEncoder.prepare(avatar, size, format);
  const frames = Math.ceil(SECONDS * avatar.fps);
  const outputPath = join(dir, `static-${format}.mp4`);
  return measured(() => stillEncoder.encode({ ...size, format, fps: avatar.fps, frames, audioPath, audioMaxSec: SECONDS, outputPath }));
}

/**
 * CPU seconds that moving `frames` yuv420p frames of `size` through a pipe costs, both ends (this process writing,
 * `cat` reading into /dev/null): what the frame worker's writes into ffmpeg's stdin cost besides the encoding.
 */
async function pipeCpu(size: { width: number; height: number }, frames: number): Promise<number> {
  const frame = new Uint8Array(rawFrameBytes('yuv420p', size.width, size.height));
  const cost = await measured(async () => {
    const cat = spawn('cat', [], { stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = once(cat, 'exit');
    for (let i = 0; i < frames; i++) if (!cat.stdin.write(frame)) await once(cat.stdin, 'drain');
    cat.stdin.end();
    await exited;
  });
  return cost.cpu;
}

/**
 * CPU seconds to draw the job's frames on this thread, as the frame worker does, into one reused buffer: the
 * second of two passes, each with a new renderer (the first draws the layers of every tilt step the motion visits).
 */
function drawingCpu(avatar: AvatarDefinition, size: { width: number; height: number }, track: MouthShape[], format: RawVideoFormat): number {
  const frame = new Uint8Array(rawFrameBytes(format, size.width, size.height));
  const frames = Math.ceil(SECONDS * avatar.fps);
  let cpu = 0;
  for (let pass = 0; pass < 2; pass++) {
    const renderer = new FrameRenderer({ ...avatar, ...size });
    const start = cpuSeconds();
    for (let i = 0; i < frames; i++) renderer.renderFormatInto(format, i, track[i] ?? RESTING_MOUTH, frame);
    cpu = cpuSeconds() - start;
  }
  return cpu;
}

/** Peak memory of one whole job of `seconds` at `size`, in its own process, sampled from outside. */
async function memoryRun(speech: string, seconds: number, size: { width: number; height: number }) {
  const child = fileURLToPath(new URL('./lipsync/memory-child.ts', import.meta.url));
  let sampler: ReturnType<typeof sampleTreeMemory> | undefined;
  const output = await new Promise<string>((resolve, reject) => {
    const proc = execFile(process.execPath, ['--import', 'tsx', child, speech, String(seconds), `${size.width}x${size.height}`], { maxBuffer: 1 << 20 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    );
    sampler = sampleTreeMemory(proc.pid!);
  });
  const tree = await sampler!.stop();
  const result = JSON.parse(output) as { seconds: number; maxRssMiB: number };
  return {
    bench: 'lipsync-memory',
    size: `${size.width}x${size.height}`,
    audioSeconds: seconds,
    wholeJobSeconds: round(result.seconds),
    peakTreeRssMiB: round(tree.peakTreeRssMiB),
    peakRssByProcessMiB: Object.fromEntries(Object.entries(tree.peakRssByCommandMiB).map(([name, mib]) => [name, round(mib)])),
    samples: tree.samples,
  };
}

