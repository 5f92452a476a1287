// Checks exported viseme models with the onnxruntime the engine uses (onnxruntime-node, one thread, CPU) and compares
// their speed and memory with the shipped model's, measured the same way in the same run:
// - the signature (`features` [1, T, 40] in, `posteriors` [1, T, 9] out) for T = 1, 5, 300, rows summing to 1;
// - the engine's chunking (src/inference/lipsync/viseme-model.ts: 1000 frames, 100 left, 50 right) against one run
//   over 3 000 frames (mean |difference| and the share of frames whose argmax agrees);
// - an optional golden vector (`--golden golden-<arch>.json`, as train_gpu.py / export.py write it);
// - speed on the engine's 1 150-frame runs: `--rounds` alternating rounds of `--seconds` of CPU time per model, the
//   median audio seconds per CPU second (× real time of the model alone) and the median ratio to the shipped model;
// - memory: the peak RSS of a fresh process that loads one model and runs 10 such chunks.
//   node training/lipsync/ort_check.mjs model.onnx [more.onnx ...] [--golden g.json] [--baseline shipped.onnx]
//        [--rounds 5] [--seconds 2] [--json out.json]
// Python's onnxruntime is not packaged in Debian; on the GPU machine train_gpu.py checks with it instead.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const require = createRequire(new URL('../../package.json', import.meta.url));
const ort = require('onnxruntime-node');
const MELS = 40;
const CLASSES = 9;
const CHUNK = 1000;
const LEFT = 100;
const RIGHT = 50;

const args = process.argv.slice(2);
const flags = new Set(['--golden', '--baseline', '--rounds', '--seconds', '--json', '--rss']);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const paths = args.filter((a, i) => !a.startsWith('--') && !flags.has(args[i - 1]));

async function open(path) {
  return ort.InferenceSession.create(path, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
  });
}

async function posteriors(session, feats, frames) {
  const r = await session.run({ features: new ort.Tensor('float32', feats, [1, frames, MELS]) });
  const t = r.posteriors;
  if (t.dims.join() !== [1, frames, CLASSES].join()) throw new Error(`posteriors dims ${t.dims} for ${frames} frames`);
  return t.data;
}

/** Speech-like log-mel rows (the pattern of test/lipsync/viseme-model.test.ts). */
function features(frames) {
  const f = new Float32Array(frames * MELS);
  for (let i = 0; i < f.length; i++) f[i] = -8 + 6 * Math.sin(i * 0.37) * Math.sin(i * 0.0011);
  return f;
}

const RUN_FRAMES = CHUNK + LEFT + RIGHT;

if (opt('--rss')) {
  // child mode: one model's memory
  const s = await open(opt('--rss'));
  const f = features(RUN_FRAMES);
  for (let i = 0; i < 10; i++) await posteriors(s, f, RUN_FRAMES);
  console.log(JSON.stringify({ rssMiB: Number((process.resourceUsage().maxRSS / 1024).toFixed(1)) }));
  process.exit(0);
}

if (paths.length === 0) {
  console.error('usage: node ort_check.mjs model.onnx [more.onnx ...] [--golden g.json] [--baseline shipped.onnx]');
  process.exit(2);
}
const baseline = opt('--baseline', fileURLToPath(new URL('../../models/lipsync/viseme.onnx', import.meta.url)));
const models = [baseline, ...paths];
const sessions = await Promise.all(models.map(open));
const out = { baseline, models: {} };

for (const [k, path] of models.entries()) {
  const s = sessions[k];
  const r = { inputNames: s.inputNames, outputNames: s.outputNames };
  if (s.inputNames.join() !== 'features' || s.outputNames.join() !== 'posteriors') throw new Error(`${path}: names ${JSON.stringify(r)}`);
  for (const frames of [1, 5, 300]) {
    const p = await posteriors(s, features(frames), frames);
    for (let t = 0; t < frames; t++) {
      let sum = 0;
      for (let c = 0; c < CLASSES; c++) sum += p[t * CLASSES + c];
      if (!(Math.abs(sum - 1) < 1e-4)) throw new Error(`${path}: row ${t} of ${frames} sums to ${sum}`);
    }
  }
  const total = 3000;
  const all = features(total);
  const whole = await posteriors(s, all, total);
  let diff = 0;
  let agree = 0;
  for (let a = 0; a < total; a += CHUNK) {
    const b = Math.min(total, a + CHUNK);
    const from = Math.max(0, a - LEFT);
    const to = Math.min(total, b + RIGHT);
    const p = await posteriors(s, all.slice(from * MELS, to * MELS), to - from);
    for (let t = a; t < b; t++) {
      let bw = 0;
      let bc = 0;
      for (let c = 0; c < CLASSES; c++) {
        const w = whole[t * CLASSES + c];
        const q = p[(t - from) * CLASSES + c];
        diff += Math.abs(w - q);
        if (w > whole[t * CLASSES + bw]) bw = c;
        if (q > p[(t - from) * CLASSES + bc]) bc = c;
      }
      if (bw === bc) agree++;
    }
  }
  r.chunkedVsWholeMeanAbs = diff / (total * CLASSES);
  r.chunkedVsWholeArgmaxAgree = agree / total;
  r.rssMiB = JSON.parse(execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--rss', path]).toString()).rssMiB;
  out.models[path] = r;
}

const golden = opt('--golden');
if (golden) {
  const g = JSON.parse(readFileSync(golden, 'utf8'));
  const s = sessions[1];
  const p = await posteriors(s, Float32Array.from(g.features.flat()), g.features.length);
  let e = 0;
  g.posteriors.flat().forEach((v, i) => (e = Math.max(e, Math.abs(p[i] - v))));
  out.models[paths[0]].goldenMaxAbs = e;
  if (e > 1e-4) throw new Error(`golden mismatch ${e}`);
}

// speed: alternating rounds over all models, CPU time of this process
const rounds = Number(opt('--rounds', 5));
const seconds = Number(opt('--seconds', 2));
const input = features(RUN_FRAMES);
const speeds = models.map(() => []);
for (let round = 0; round < rounds; round++) {
  for (const [k, s] of sessions.entries()) {
    await posteriors(s, input, RUN_FRAMES);
    const c0 = process.cpuUsage();
    let runs = 0;
    let cpu = 0;
    while (cpu < seconds) {
      await posteriors(s, input, RUN_FRAMES);
      runs++;
      const c = process.cpuUsage(c0);
      cpu = (c.user + c.system) / 1e6;
    }
    speeds[k].push((runs * CHUNK) / 100 / cpu); // audio seconds of posteriors per CPU second
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
for (const [k, path] of models.entries()) {
  const r = out.models[path];
  r.realTimeFactorCpu = Number(median(speeds[k]).toFixed(0));
  r.speedVsBaseline = Number(median(speeds[k].map((v, i) => v / speeds[0][i])).toFixed(3));
}
console.log(JSON.stringify(out, null, 1));
const json = opt('--json');
if (json) writeFileSync(json, JSON.stringify(out, null, 1));
