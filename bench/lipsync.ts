/**
 * Lip-sync bench: for 60 s of speech at each frame size of BENCH_LIPSYNC_SIZES (default `512x512`, the avatar's
 * own; e.g. `512x512,1280x720,1920x1080`) and 25 fps, the real-time factor (processing time ÷
 * audio time; below 1 is faster than real time) of the whole job, of analysis alone and of drawing alone, and the
 * time to encode the same number of frames of one static image with the same ffmpeg settings (the encoder's own
 * limit), all in one run; the whole job (frames drawn on a worker thread, the default, and on the main thread) and
 * the encoder limit alternate BENCH_LIPSYNC_ROUNDS times (default 3) and their medians are compared. Then peak
 * memory of a whole job on each of BENCH_LIPSYNC_MEMORY_SECONDS (default 30 and 300 s of speech), each in its own
 * process (an empty BENCH_LIPSYNC_MEMORY_SECONDS skips it).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { resolveMediaBinaries } from '../src/inference/media/index.js';
import { openVideoEncoder } from '../src/inference/media/encode-video.js';
import { FrameRenderer } from '../src/inference/render/frame-renderer.js';
import type { RenderThread } from '../src/inference/render/frame-source.js';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { RESTING_MOUTH, type MouthShape } from '../src/inference/lipsync/mouth.js';
import { loadAvatarDefinitions } from '../src/inference/avatar/catalogue-definitions.js';
import type { BenchSection } from './lib/settings.js';
import { median } from './lib/stats.js';
import { makeSpeech } from './lipsync/speech.js';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_LIPSYNC_SECONDS ?? 60);
const ROUNDS = Math.max(1, Number(process.env.BENCH_LIPSYNC_ROUNDS ?? 3));
const list = (value: string) => value.split(',').map((item) => item.trim()).filter((item) => item !== '');
const MEMORY_SECONDS = list(process.env.BENCH_LIPSYNC_MEMORY_SECONDS ?? '30,300').map(Number);
/** Frame sizes to measure, `WIDTHxHEIGHT` each. */
const SIZES = list(process.env.BENCH_LIPSYNC_SIZES ?? '512x512').map((item) => {
  const match = /^(\d+)x(\d+)$/.exec(item);
  if (!match) throw new Error(`BENCH_LIPSYNC_SIZES: ${item} is not WIDTHxHEIGHT`);
  return { width: Number(match[1]), height: Number(match[2]) };
});

const timed = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return (performance.now() - start) / 1000;
};

export const lipSyncBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-lipsync-'));
  try {
    const binaries = await resolveMediaBinaries();
    const [avatar] = await loadAvatarDefinitions();
    if (!avatar) throw new Error('no avatar definitions');
    // Memory first, while this process is still small: on Linux a child's peak RSS can include its parent's.
    const child = fileURLToPath(new URL('./lipsync/memory-child.ts', import.meta.url));
    for (const seconds of MEMORY_SECONDS) {
      const speech = await makeSpeech(dir, seconds, binaries.ffmpegPath);
      const { stdout } = await run(process.execPath, ['--import', 'tsx', child, speech, String(seconds)], { maxBuffer: 1 << 20 });
      const result = JSON.parse(stdout) as { seconds: number; maxRssMiB: number };
      emit({ bench: 'lipsync-memory', audioSeconds: seconds, wholeJobSeconds: round(result.seconds), peakRssMiB: round(result.maxRssMiB) });
    }
    const audioPath = await makeSpeech(dir, SECONDS, binaries.ffmpegPath);
    const frames = Math.ceil(SECONDS * avatar.fps);
    const analyzer = new OnnxMouthAnalyzer({ binaries });
    const signal = new AbortController().signal;
    const context = { signal, onProgress: () => undefined, workDir: dir };

    let track: MouthShape[] = [];
    const analysis = await timed(async () => {
      track = await analyzer.analyze(audioPath, avatar.fps, signal);
    });
    for (const size of SIZES) {
      // The avatar drawn at this frame size, as the engine does for a job's `dimension`.
      const sized = { ...avatar, ...size };
      const job = (renderThread: RenderThread) =>
        timed(() =>
          new CanvasLipSyncEngine(analyzer, { binaries, renderThread }).render(
            { audioPath, durationSec: SECONDS, avatar, outputSize: size, outputPath: join(dir, `job-${renderThread}.mp4`) },
            context,
          ),
        );
      const still = Buffer.from(new FrameRenderer(sized).render(0, RESTING_MOUTH));
      const staticEncode = () =>
        timed(async () => {
          const encoder = openVideoEncoder(
            { ...size, fps: avatar.fps, audioPath, outputPath: join(dir, 'static.mp4') },
            binaries,
          );
          for (let i = 0; i < frames; i++) await encoder.write(still);
          await encoder.finish();
        });
      // The machine's speed drifts (shared cores): the job and the encoder limit are measured in
      // alternation, ROUNDS times, and each is reported as its median.
      const wholeRuns: number[] = [];
      const mainThreadRuns: number[] = [];
      const staticRuns: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        wholeRuns.push(await job('worker'));
        staticRuns.push(await staticEncode());
        mainThreadRuns.push(await job('main'));
      }
      const whole = median(wholeRuns);
      const encoderLimit = median(staticRuns);
      const renderer = new FrameRenderer(sized);
      const frame = new Uint8Array(size.width * size.height * 4);
      const drawing = await timed(async () => {
        for (let i = 0; i < frames; i++) {
          renderer.renderInto(i, track[i] ?? RESTING_MOUTH, frame); // as a job draws into its frame ring
          await new Promise((resolve) => setImmediate(resolve)); // lets the face buffers be freed, as in a job
        }
      });
      emit({
        bench: 'lipsync',
        audioSeconds: SECONDS,
        size: `${size.width}x${size.height}`,
        fps: avatar.fps,
        frames,
        wholeJobSeconds: round(whole),
        wholeJobRtf: round(whole / SECONDS),
        analysisRtf: round(analysis / SECONDS),
        drawingRtf: round(drawing / SECONDS),
        staticEncodeSeconds: round(encoderLimit),
        staticEncodeRtf: round(encoderLimit / SECONDS),
        wholeJobVsEncoderLimit: round(whole / encoderLimit),
        mainThreadWholeJobVsEncoderLimit: round(median(mainThreadRuns) / encoderLimit),
        rounds: ROUNDS,
        wholeJobRuns: wholeRuns.map(round),
        mainThreadWholeJobRuns: mainThreadRuns.map(round),
        staticEncodeRuns: staticRuns.map(round),
        target: 'wholeJobVsEncoderLimit <= 1.3, wholeJobRtf <= 0.5',
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const round = (value: number) => Math.round(value * 1000) / 1000;
