/**
 * Photo-avatar preparation, face detection part: the time the built-in FaceDetector (its worker thread, as the
 * service runs it) takes to find the face in a 1024×1024 JPEG portrait (Grace Hopper from the test fixtures,
 * scaled to cover the frame). `coldSeconds` is the first call (worker start, models loaded); `medianSeconds` the
 * median of BENCH_PHOTO_DETECT_RUNS (default 5) calls after it, against a target of 5 s. `decodeMedianSeconds`
 * (the same photo decoded and scaled on this thread, measured in the same run) is the part of it that is not the
 * models. CPU seconds (the whole process's) and the load average say how much of the wall time was waiting for a
 * busy machine. One JSON line. Part of `npm run bench photo` (bench/photo.ts); `tsx bench/photo-detect.ts` runs it alone.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { decodePhoto } from '../src/inference/face/decode-photo.js';
import { DETECTION_MAX_SIDE } from '../src/inference/face/detect-faces.js';
import { createFaceDetector, faceWorkers } from '../src/inference/face/face-detector.js';
import type { BenchLine, BenchSection } from './lib/settings.js';
import { measured } from './lib/measure.js';
import { median, round } from './lib/stats.js';

const RUNS = Math.max(1, Number(process.env.BENCH_PHOTO_DETECT_RUNS ?? 5));
const SIZE = 1024;
const TARGET_SECONDS = 5;
const PORTRAIT = fileURLToPath(new URL('../test/fixtures/faces/grace_hopper.jpg', import.meta.url));

/** A `SIZE × SIZE` JPEG of the portrait, scaled to cover the square and centred. */
export async function squarePortrait(dir: string): Promise<string> {
  const image = await loadImage(PORTRAIT);
  const scale = SIZE / Math.min(image.width, image.height);
  const canvas = createCanvas(SIZE, SIZE);
  canvas.getContext('2d').drawImage(image, (SIZE - image.width * scale) / 2, (SIZE - image.height * scale) / 2, image.width * scale, image.height * scale);
  const path = join(dir, 'portrait-1024.jpg');
  await writeFile(path, await canvas.encode('jpeg', 92));
  return path;
}

export const photoDetectBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-photo-detect-'));
  try {
    const photo = await squarePortrait(dir);
    const detector = createFaceDetector();
    let faces = 0;
    const cold = await measured(async () => {
      faces = (await detector.detect(photo)).faces.length;
    });
    const warm: { wall: number; cpu: number }[] = [];
    const decode: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      warm.push(await measured(() => detector.detect(photo)));
      decode.push((await measured(() => decodePhoto(photo, DETECTION_MAX_SIDE))).wall);
    }
    const medianSeconds = median(warm.map(({ wall }) => wall));
    const line: BenchLine = {
      bench: 'photo-detect',
      photo: `${SIZE}x${SIZE}`,
      faces,
      workers: faceWorkers(),
      coldSeconds: round(cold.wall),
      coldCpuSeconds: round(cold.cpu),
      medianSeconds: round(medianSeconds),
      medianCpuSeconds: round(median(warm.map(({ cpu }) => cpu))),
      runs: RUNS,
      decodeMedianSeconds: round(median(decode)),
      targetSeconds: TARGET_SECONDS,
      withinTarget: cold.wall <= TARGET_SECONDS && medianSeconds <= TARGET_SECONDS,
      loadAverage: round(loadavg()[0]),
    };
    emit(line);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await photoDetectBench({ durationMs: 0, warmupMs: 0, concurrency: 1, maxRequests: 1 }, (line) => process.stdout.write(`${JSON.stringify(line)}\n`));
  process.exit(0);
}
