// Checks an exported separation model with the onnxruntime the engine uses (onnxruntime-node, one thread, CPU):
// the signature (`mag` [1, T, 257] in, `mask` [1, T, 257] out), masks within [0, 1] for T = 1, 5, 300, chunked
// masks (64 frames of context each side, MODEL_CONTEXT in src/inference/separation/model.ts) equal to a whole-file
// run, an optional golden vector (`--golden file.json`, as export writes it), and the model's speed on chunks of
// 500 + 2·64 frames (the engine's default chunk), as audio seconds per second of inference (wall clock, and per
// second of the process's CPU time, which a busy shared machine disturbs less).
//   node training/separation/ort_check.mjs model.onnx [--golden golden.json] [--seconds 60] [--json out.json]
// Python's onnxruntime is not packaged in Debian; on the GPU machine train_gpu.py checks with it instead.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';

const require = createRequire(new URL('../../package.json', import.meta.url));
const ort = require('onnxruntime-node');
const BINS = 257;
const CONTEXT = 64;
const FRAME_SEC = 256 / 16000;

const args = process.argv.slice(2);
const path = args[0];
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
if (!path) {
  console.error('usage: node ort_check.mjs model.onnx [--golden golden.json] [--seconds 60] [--json out.json]');
  process.exit(2);
}

const session = await ort.InferenceSession.create(path, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionProviders: ['cpu'],
  graphOptimizationLevel: 'all',
});
const out = { model: path, inputNames: session.inputNames, outputNames: session.outputNames };
if (session.inputNames.join() !== 'mag' || session.outputNames.join() !== 'mask') throw new Error(`names: ${JSON.stringify(out)}`);

async function mask(mag, frames) {
  const r = await session.run({ mag: new ort.Tensor('float32', mag, [1, frames, BINS]) });
  const t = r.mask;
  if (t.dims.join() !== [1, frames, BINS].join()) throw new Error(`mask dims ${t.dims} for ${frames} frames`);
  return t.data;
}

function magnitudes(frames, seed) {
  const x = new Float32Array(frames * BINS);
  let s = seed;
  for (let i = 0; i < x.length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const k = i % BINS;
    x[i] = (s / 2147483648) * Math.exp(-k / 80) * (0.2 + Math.abs(Math.sin(i * 0.0007)));
  }
  return x;
}

for (const frames of [1, 5, 300]) {
  const m = await mask(magnitudes(frames, frames), frames);
  if (!m.every((v) => v >= 0 && v <= 1 && Number.isFinite(v))) throw new Error(`mask out of [0, 1] for ${frames} frames`);
}

// chunked vs whole: frames [a, b) with 64 frames of context each side
const total = 700;
const whole = await mask(magnitudes(total, 7), total);
let chunkErr = 0;
const all = magnitudes(total, 7);
for (let a = 0; a < total; a += 47) {
  const b = Math.min(total, a + 47);
  const from = Math.max(0, a - CONTEXT);
  const to = Math.min(total, b + CONTEXT);
  const m = await mask(all.slice(from * BINS, to * BINS), to - from);
  for (let t = a; t < b; t++)
    for (let k = 0; k < BINS; k++) chunkErr = Math.max(chunkErr, Math.abs(m[(t - from) * BINS + k] - whole[t * BINS + k]));
}
out.chunkedVsWholeMaxAbs = chunkErr;
if (chunkErr > 1e-5) throw new Error(`chunked masks differ from the whole-file run by ${chunkErr}`);

const golden = opt('--golden');
if (golden) {
  const g = JSON.parse(readFileSync(golden, 'utf8'));
  const m = await mask(Float32Array.from(g.mag), g.frames);
  let e = 0;
  g.mask.forEach((v, i) => (e = Math.max(e, Math.abs(m[i] - v))));
  out.goldenMaxAbs = e;
  if (e > 1e-4) throw new Error(`golden mismatch ${e}`);
}

// speed: the engine's chunk of 500 frames + 2·64 context
const seconds = Number(opt('--seconds', 30));
const chunk = 500 + 2 * CONTEXT;
const input = magnitudes(chunk, 3);
await mask(input, chunk);
let runs = 0;
const t0 = process.hrtime.bigint();
const c0 = process.cpuUsage();
let busy = 0;
while (busy < 2 || runs * 500 * FRAME_SEC < seconds) {
  await mask(input, chunk);
  runs++;
  busy = Number(process.hrtime.bigint() - t0) / 1e9;
}
const c = process.cpuUsage(c0);
const cpu = (c.user + c.system) / 1e6;
out.chunks = runs;
// wall clock, and the process's CPU time (less sensitive to other processes on a shared machine)
out.realTimeFactor = Number(((runs * 500 * FRAME_SEC) / busy).toFixed(1));
out.realTimeFactorCpu = Number(((runs * 500 * FRAME_SEC) / cpu).toFixed(1));
console.log(JSON.stringify(out));
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify(out, null, 1));
