/**
 * Separation bench: `runSeparationBench()` (or `npx tsx bench/separation.ts`) builds an evaluation set from the
 * held-out sources listed in models/separation/heldout.json (Debian packages: fillets-ng-data-cs, alsa-utils, the
 * asterisk-core-sounds-{ru,it}-g722 voices, hyperrogue-music, sonic-pi-samples, freedoom, fretsonfire-songs-* and the
 * game soundtracks of training/separation/prep.py — files, speakers and languages never seen in training),
 * deterministically: BENCH_SEPARATION_PER_CONDITION (default 2) mixtures of 10 s at 16 kHz per condition, speech
 * {real: fillets held-out levels + alsa voice; other-language: Russian and Italian telephony voices} × background
 * {music (instrumental), song (rock/metal songs), sfx, noise} × SNR {−5, 0, 5} dB. Per method it reports SI-SDR
 * improvement (dB) for speech and for ambience (mean, median, per condition and per group) and the real-time factor
 * on one core (audio seconds per processing second, single-threaded onnxruntime):
 *   mixture (sanity row, 0 dB), oracle (ideal ratio mask on the model's 16 kHz STFT: the mask's ceiling), wiener
 *   (classical DSP baseline), model (the shipped ONNX mask net, in-process), previous model (when
 *   BENCH_SEPARATION_PREVIOUS names an .onnx file), rnnoise (@shiguredo/rnnoise-wasm, RNNoise 0.2, 16→48→16 kHz,
 *   delay-compensated, bench/separation-rnnoise.ts; no Debian package ships RNNoise);
 * plus full-band rows at 44.1 kHz (bench/separation-fullband.ts): the share of a clean voice's 8–16 kHz energy that
 * ends in the speech stem, and the speech stem's energy on held-out songs and music without speech; one end-to-end
 * engine rows (ffmpeg decode and encodes included, as a job runs it: see {@link engineRows}) for its start-up, its
 * real-time factor and CPU on 30 s and 300 s inputs, the separation child's own minor page faults a job
 * (`childMinorFaults`), and the peak RSS of its process tree (bounded memory).
 * When the Debian packages are not installed the rows say so (`skipped`) instead of failing.
 * `BENCH_SEPARATION_ENGINE_ONLY=1` runs the engine rows alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { decodeAudio, encodeAudio, resolveMediaBinaries, type MediaBinaries } from '../src/inference/media/index.js';
import {
  BINS,
  NFFT,
  OnnxSeparationEngine,
  SeparationModel,
  StftStream,
  StreamingSeparator,
  concatSamples,
} from '../src/inference/separation/index.js';
import { FULL_RATE, bandEnergy, energyDb, fullBandSpeech } from './separation-fullband.js';
import { RNNOISE_DELAY_48K, loadRnnoise, measureRnnoiseDelay, rnnoiseSpeech } from './separation-rnnoise.js';
import { wienerSpeech } from './separation-wiener.js';
import { median } from './lib/stats.js';
import { cpuSeconds } from './lipsync/cpu-time.js';
import { sampleTreeMemory } from './lipsync/tree-memory.js';
import { processTree } from '../test/helpers/processes.js';

const SR = 16000;
const SECONDS = 10;
/** Mixtures per condition (speech kind × background × SNR). */
const PER_CONDITION = Math.max(1, Math.round(Number(process.env.BENCH_SEPARATION_PER_CONDITION ?? 2)));
const BACKGROUNDS = ['music', 'song', 'sfx', 'noise'] as const;
const SNRS = [-5, 0, 5] as const;
const HELDOUT = new URL('../models/separation/heldout.json', import.meta.url);

interface Heldout {
  speech: string[];
  speechOtherLanguages?: string[];
  ambience: Record<string, string[]>;
}

interface Mixture {
  category: string;
  speechKind: string;
  snrDb: number;
  mix: Float32Array;
  speech: Float32Array;
  ambience: Float32Array;
}

/** Deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const execFileAsync = promisify(execFile);

async function load(path: string, binaries: MediaBinaries, sampleRate = SR): Promise<Float32Array> {
  // The held-out sources are Debian's own files: the telephony voices are G.722, a format the service's decoder
  // does not accept from users (its input whitelist), so those are decoded here with ffmpeg directly.
  if (path.endsWith('.g722')) {
    const { stdout } = await execFileAsync(
      binaries.ffmpegPath,
      ['-v', 'error', '-f', 'g722', '-i', path, '-ac', '1', '-ar', String(sampleRate), '-f', 'f32le', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
    );
    return new Float32Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length));
  }
  const chunks: Buffer[] = [];
  for await (const c of decodeAudio(path, { sampleRate, channels: 1 }, binaries)) chunks.push(c as Buffer);
  const b = Buffer.concat(chunks);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

const rms = (x: Float32Array): number => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / Math.max(1, x.length));

async function buildSet(heldout: Heldout, binaries: MediaBinaries): Promise<Mixture[]> {
  const n = SECONDS * SR;
  const rand = rng(2024);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const speechKinds: [string, string[]][] = [
    ['real', heldout.speech.filter((f) => existsSync(f))],
    ['other-language', (heldout.speechOtherLanguages ?? []).filter((f) => existsSync(f))],
  ];
  const out: Mixture[] = [];
  for (const [speechKind, speechFiles] of speechKinds) {
    if (speechFiles.length === 0) continue;
    for (const category of BACKGROUNDS) {
      const files = (heldout.ambience[category] ?? []).filter((f) => existsSync(f));
      if (category !== 'noise' && files.length === 0) continue;
      for (const snrDb of SNRS) {
        for (let r = 0; r < PER_CONDITION; r++) {
          const speech = new Float32Array(n);
          for (let pos = Math.floor(rand() * 0.3 * SR); pos < n - SR / 4; ) {
            const clip = await load(pick(speechFiles), binaries);
            const g = 0.1 / (rms(clip) + 1e-9);
            for (let j = 0; j < clip.length && pos + j < n; j++) speech[pos + j] = clip[j] * g;
            pos += clip.length + Math.floor((0.1 + 0.5 * rand()) * SR);
          }
          const amb = category === 'noise' ? pinkish(n, rand) : await segment(await load(pick(files), binaries), n, rand);
          out.push(mixAt(speech, amb, snrDb, category, speechKind));
        }
      }
    }
  }
  return out;
}

/** Pinkish noise: two leaky integrators over white noise, slowly modulated. */
function pinkish(n: number, rand: () => number): Float32Array {
  const amb = new Float32Array(n);
  let b0 = 0;
  let b1 = 0;
  for (let j = 0; j < n; j++) {
    const w = rand() * 2 - 1;
    b0 = 0.99 * b0 + 0.1 * w;
    b1 = 0.6 * b1 + w;
    amb[j] = (b0 + 0.3 * b1) * (1 + 0.5 * Math.sin((2 * Math.PI * 0.3 * j) / SR));
  }
  return amb;
}

/** `n` samples of `clip`: a random stretch of a long clip, or a short one repeated with random gaps. */
function segment(clip: Float32Array, n: number, rand: () => number): Float32Array {
  if (clip.length >= n) {
    const start = Math.floor(rand() * (clip.length - n));
    return clip.slice(start, start + n);
  }
  const amb = new Float32Array(n);
  for (let pos = Math.floor(rand() * SR); pos < n; pos += clip.length + Math.floor(rand() * SR)) {
    for (let j = 0; j < clip.length && pos + j < n; j++) amb[pos + j] += clip[j];
  }
  return amb;
}

function mixAt(speech: Float32Array, amb: Float32Array, snrDb: number, category: string, speechKind: string): Mixture {
  const n = speech.length;
  const scale = (rms(speech) / (rms(amb) + 1e-9)) * 10 ** (-snrDb / 20);
  const mix = new Float32Array(n);
  let peak = 0;
  for (let j = 0; j < n; j++) {
    amb[j] *= scale;
    mix[j] = speech[j] + amb[j];
    peak = Math.max(peak, Math.abs(mix[j]));
  }
  const g = 0.5 / peak;
  for (let j = 0; j < n; j++) {
    mix[j] *= g;
    speech[j] *= g;
    amb[j] *= g;
  }
  return { category, speechKind, snrDb, mix, speech, ambience: amb };
}

export function siSdr(est: Float32Array, ref: Float32Array): number {
  const n = Math.min(est.length, ref.length);
  let me = 0;
  let mr = 0;
  for (let i = 0; i < n; i++) {
    me += est[i] / n;
    mr += ref[i] / n;
  }
  let dot = 0;
  let rr = 0;
  for (let i = 0; i < n; i++) {
    dot += (est[i] - me) * (ref[i] - mr);
    rr += (ref[i] - mr) ** 2;
  }
  const a = dot / (rr + 1e-12);
  let t = 0;
  let e = 0;
  for (let i = 0; i < n; i++) {
    const r = a * (ref[i] - mr);
    t += r * r;
    e += (est[i] - me - r) ** 2;
  }
  return 10 * Math.log10((t + 1e-12) / (e + 1e-12));
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const r2 = (x: number): number => Math.round(x * 100) / 100;

/** `run` returns the speech estimate; the ambience estimate is `mix − speech` unless `ambience` is given. */
async function score(
  method: string,
  set: Mixture[],
  run: (mix: Float32Array, mixture: Mixture) => Promise<Float32Array>,
  ambience?: (mix: Float32Array, speech: Float32Array) => Float32Array,
): Promise<object> {
  const sp: number[] = [];
  const am: number[] = [];
  const byCat: Record<string, { speech: number[]; ambience: number[] }> = {};
  const groups: Record<string, number[]> = {};
  let busy = 0;
  for (const m of set) {
    const t0 = process.hrtime.bigint();
    const est = await run(m.mix, m);
    busy += Number(process.hrtime.bigint() - t0) / 1e9;
    const rest = ambience ? ambience(m.mix, est) : m.mix.map((v, i) => v - est[i]);
    const s = siSdr(est, m.speech) - siSdr(m.mix, m.speech);
    const a = siSdr(rest, m.ambience) - siSdr(m.mix, m.ambience);
    sp.push(s);
    am.push(a);
    const key = `${m.category}@${m.snrDb}dB/${m.speechKind}`;
    byCat[key] ??= { speech: [], ambience: [] };
    byCat[key].speech.push(s);
    byCat[key].ambience.push(a);
    for (const g of [`background=${m.category}`, `snr=${m.snrDb}dB`, `speech=${m.speechKind}`]) (groups[g] ??= []).push(s);
  }
  const audio = set.length * SECONDS;
  return {
    method,
    mixtures: set.length,
    speechSiSdriMeanDb: r2(mean(sp)),
    speechSiSdriMedianDb: r2(median(sp)),
    ambienceSiSdriMeanDb: r2(mean(am)),
    ambienceSiSdriMedianDb: r2(median(am)),
    realTimeFactor: busy > 0 ? Math.round(audio / busy) : null,
    speechSiSdriByGroup: Object.fromEntries(Object.entries(groups).map(([k, v]) => [k, { meanDb: r2(mean(v)), medianDb: r2(median(v)) }])),
    perCondition: Object.fromEntries(
      Object.entries(byCat).map(([k, v]) => [k, { speechSiSdriMeanDb: r2(mean(v.speech)), ambienceSiSdriMeanDb: r2(mean(v.ambience)) }]),
    ),
  };
}

/** A generated input of `seconds` (44.1 kHz stereo wav: a tone and noise). */
async function engineInput(seconds: number, dir: string, binaries: MediaBinaries): Promise<string> {
  const input = join(dir, `long-${seconds}.wav`);
  const frames = 44100 * seconds;
  const rand = rng(seconds);
  async function* pcm(): AsyncGenerator<Buffer> {
    for (let done = 0; done < frames; done += 44100) {
      const buf = Buffer.alloc(44100 * 8);
      for (let i = 0; i < 44100; i++) {
        const v = 0.2 * Math.sin((2 * Math.PI * 440 * (done + i)) / 44100) + 0.05 * (rand() - 0.5);
        buf.writeFloatLE(v, 8 * i);
        buf.writeFloatLE(v, 8 * i + 4);
      }
      yield buf;
    }
  }
  await encodeAudio(Readable.from(pcm()), { sampleRate: 44100, channels: 2, format: 'wav', outputPath: input }, binaries);
  return input;
}

/**
 * The engine end to end as a job runs it (its pooled child process, ffmpeg decode and encodes included) on 44.1 kHz
 * stereo wav: a first 5 s job starts the child (its time is the start-up a process pays once), then
 * `BENCH_SEPARATION_ROUNDS` (default 3) rounds of a 30 s and a 300 s job, the order alternating per round. Each row
 * gives the median real-time factor (audio seconds per wall second) and every round's, the CPU seconds of the whole
 * process tree (child and ffmpeg included: steadier than wall time on a loaded machine), and the tree's peak RSS.
 */
async function engineRows(dir: string, binaries: MediaBinaries): Promise<object[]> {
  const rounds = Math.max(1, Math.round(Number(process.env.BENCH_SEPARATION_ROUNDS ?? 3)));
  const inputs = new Map<number, string>();
  for (const seconds of [5, 30, 300]) inputs.set(seconds, await engineInput(seconds, dir, binaries));
  const engine = new OnnxSeparationEngine({ binaries, logger: { info: () => undefined } });
  const run = async (seconds: number) => {
    const memory = sampleTreeMemory(process.pid);
    const faults = separationChildFaults();
    const cpu = cpuSeconds();
    const t0 = performance.now();
    await engine.separate(
      { audioPath: inputs.get(seconds)!, durationSec: seconds, speechPath: join(dir, `s-${seconds}.wav`), ambiencePath: join(dir, `a-${seconds}.wav`) },
      { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir },
    );
    const wall = (performance.now() - t0) / 1000;
    const childFaults = faults === undefined ? undefined : (separationChildFaults() ?? faults) - faults;
    return { wall, cpu: cpuSeconds() - cpu, childFaults, peakTreeRssMiB: Math.round((await memory.stop()).peakTreeRssMiB) };
  };
  const first = await run(5);
  const runs = new Map<number, Awaited<ReturnType<typeof run>>[]>([
    [30, []],
    [300, []],
  ]);
  for (let r = 0; r < rounds; r++) {
    for (const seconds of r % 2 === 0 ? [30, 300] : [300, 30]) runs.get(seconds)!.push(await run(seconds));
  }
  const method = 'engine end-to-end (wav 44.1 kHz stereo in/out, pooled child process)';
  return [
    { method, seconds: 5, firstJobWallSeconds: Math.round(first.wall * 100) / 100, note: 'first job of the process: starts the child (modules, model)' },
    ...[...runs].map(([seconds, measured]) => ({
      method,
      seconds,
      realTimeFactor: Math.round(median(measured.map((m) => seconds / m.wall))),
      realTimeFactors: measured.map((m) => Math.round(seconds / m.wall)),
      cpuSeconds: Math.round(median(measured.map((m) => m.cpu)) * 100) / 100,
      cpuRealTimeFactor: Math.round(median(measured.map((m) => seconds / m.cpu))),
      // The separation child's own minor page faults a job (~11–17 µs each on a 2-vCPU VM; see docs/performance.md).
      childMinorFaults: Math.round(median(measured.map((m) => m.childFaults ?? Number.NaN))),
      peakTreeRssMiB: Math.max(...measured.map((m) => m.peakTreeRssMiB)),
      rounds,
    })),
  ];
}

/** Minor page faults of this process's pooled separation child so far (none before it starts). */
function separationChildFaults(): number | undefined {
  // The separation child: the launcher's child (see relayed-child.ts), found by its process title below this process.
  return processTree().find((info) => info.cmdline === 'virtual-anchor source separation')?.minorFaults;
}

async function streamingSpeech(model: SeparationModel, mix: Float32Array): Promise<Float32Array> {
  const sep = new StreamingSeparator(model, 1);
  const parts: Float32Array[] = [];
  for (let i = 0; i < mix.length; i += SR) parts.push(await sep.push(mix.subarray(i, i + SR)));
  parts.push(await sep.finish());
  return concatSamples(parts);
}

/** Ideal ratio mask |S| / (|S| + |N|) on the model's own STFT, applied to the mixture: the ceiling of a real mask. */
function oracleSpeech(m: Mixture): Float32Array {
  const streams = [m.mix, m.speech, m.ambience].map((x) => {
    const st = new StftStream(1, NFFT);
    st.push(x);
    st.end();
    return st;
  });
  const [mix, speech, amb] = streams;
  const mask = new Float32Array(BINS);
  return mix.synthesise(mix.frames ?? 0, (t) => {
    const s = speech.spectrum(t);
    const a = amb.spectrum(t);
    for (let k = 0; k < BINS; k++) {
      const ms = Math.hypot(s[2 * k], s[2 * k + 1]);
      mask[k] = ms / (ms + Math.hypot(a[2 * k], a[2 * k + 1]) + 1e-9);
    }
    return mask;
  }).estimate;
}

/** Share of clean held-out voices' 8–16 kHz energy in the speech stem at 44.1 kHz (full-band engine path). */
async function upperBandShare(model: SeparationModel, heldout: Heldout, binaries: MediaBinaries): Promise<object> {
  const sources: Record<string, string[]> = {
    'alsa voice (48 kHz recording)': heldout.speech.filter((f) => f.includes('/sounds/alsa/')),
    'fillets-ng dialogue (22.05 kHz: 8–11 kHz)': heldout.speech.filter((f) => f.includes('/fillets-ng/')).slice(0, 12),
  };
  const out: Record<string, object> = {};
  for (const [name, files] of Object.entries(sources)) {
    let kept = 0;
    let total = 0;
    let lowKept = 0;
    let lowTotal = 0;
    for (const f of files.filter((p) => existsSync(p))) {
      const x = await load(f, binaries, FULL_RATE);
      const s = await fullBandSpeech(model, x, await load(f, binaries));
      kept += bandEnergy(s, FULL_RATE, 8000, 16000);
      total += bandEnergy(x, FULL_RATE, 8000, 16000);
      lowKept += bandEnergy(s, FULL_RATE, 50, 8000);
      lowTotal += bandEnergy(x, FULL_RATE, 50, 8000);
    }
    out[name] = { files: files.length, share8to16kHz: r2(kept / (total || 1)), share0to8kHz: r2(lowKept / (lowTotal || 1)) };
  }
  return { method: 'full band: clean speech energy kept in the speech stem at 44.1 kHz', ...out };
}

/** The speech stem's energy relative to the input (dB, full band at 44.1 kHz) on held-out songs and music alone. */
async function withoutSpeech(model: SeparationModel, heldout: Heldout, binaries: MediaBinaries): Promise<object> {
  const out: Record<string, object> = {};
  for (const category of ['song', 'music']) {
    const files = (heldout.ambience[category] ?? []).filter((f) => existsSync(f));
    const vals: number[] = [];
    const seconds = 10;
    // Each file is decoded once (at 44.1 kHz and at the model's rate) for all of its stretches, and dropped after its last.
    const decoded = new Map<string, [Float32Array, Float32Array]>();
    const segments = Math.min(8, files.length * 3);
    for (let i = 0; i < segments; i++) {
      const f = files[i % files.length]!;
      if (!decoded.has(f)) decoded.set(f, [await load(f, binaries, FULL_RATE), await load(f, binaries)]);
      const [x, low] = decoded.get(f)!;
      if (i + files.length >= segments) decoded.delete(f);
      // up to three 10 s stretches per file, at 1/4, 2/4 and 3/4 of it
      const start = Math.max(0, Math.floor(((x.length / FULL_RATE - seconds) * (Math.floor(i / files.length) + 1)) / 4));
      const xs = x.slice(start * FULL_RATE, (start + seconds) * FULL_RATE);
      const s = await fullBandSpeech(model, xs, low.slice(start * SR, (start + seconds) * SR));
      vals.push(energyDb(s, xs));
    }
    if (vals.length > 0) out[category] = { segments: vals.length, meanDb: r2(mean(vals)), medianDb: r2(median(vals)), maxDb: r2(Math.max(...vals)) };
  }
  return { method: 'speech stem energy relative to the input, songs/music without speech (44.1 kHz)', ...out };
}

export async function runSeparationBench(): Promise<object[]> {
  const rows: object[] = [];
  const binaries = await resolveMediaBinaries();
  const heldout = JSON.parse(readFileSync(HELDOUT, 'utf8')) as Heldout;
  const missing = [...heldout.speech.slice(0, 1), ...Object.values(heldout.ambience).map((f) => f[0])].filter((f) => !existsSync(f));
  if (process.env.BENCH_SEPARATION_ENGINE_ONLY === '1') {
    // Only the engine rows below (its speed and memory), without the quality rows.
  } else if (missing.length > 0) {
    rows.push({ method: 'all', skipped: `held-out sources not installed (${missing[0]}): apt-get install fillets-ng-data-cs alsa-utils hyperrogue-music sonic-pi-samples freedoom wesnoth-1.16-music warzone2100-music singularity-music planetblupi-music-ogg drascula-music asc-music` });
  } else {
    const set = await buildSet(heldout, binaries);
    // Sanity row: the mixture itself as the estimate of both stems (0 dB improvement by definition).
    rows.push(await score('mixture', set, async (mix) => mix, (mix) => mix));
    rows.push(await score('oracle (ideal ratio mask on the 16 kHz STFT)', set, async (_mix, m) => oracleSpeech(m)));
    rows.push(await score('wiener (min-statistics noise estimate)', set, async (mix) => wienerSpeech(mix)));
    const model = await SeparationModel.load();
    rows.push(await score('model (models/separation/separator.onnx, 1 thread)', set, async (mix) => streamingSpeech(model, mix)));
    const previous = process.env.BENCH_SEPARATION_PREVIOUS;
    if (previous && existsSync(previous)) {
      const old = await SeparationModel.load(previous);
      rows.push(await score(`previous model (${previous}, 1 thread)`, set, async (mix) => streamingSpeech(old, mix)));
    }
    // RNNoise: resampled to 48 kHz and back inside `run` (counted in its real-time factor), output shifted back by
    // the algorithmic delay; the delay is re-measured on the first mixture and reported next to the row.
    const rnnoise = await loadRnnoise();
    const measured = measureRnnoiseDelay(rnnoise, set[0].mix);
    rows.push({
      ...(await score('rnnoise (@shiguredo/rnnoise-wasm 2025.1.5, RNNoise 0.2, 16→48→16 kHz)', set, async (mix) => rnnoiseSpeech(rnnoise, mix))),
      delayCompensated48k: RNNOISE_DELAY_48K,
      delayMeasured48k: measured.lag,
    });
    rows.push(await upperBandShare(model, heldout, binaries));
    rows.push(await withoutSpeech(model, heldout, binaries));
  }
  const dir = await mkdtemp(join(tmpdir(), 'va-sep-bench-'));
  try {
    rows.push(...(await engineRows(dir, binaries)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runSeparationBench();
  console.log(JSON.stringify(rows, null, 2));
}
