/**
 * Separation bench: `runSeparationBench()` (or `npx tsx bench/separation.ts`) builds a small evaluation set from the
 * held-out sources listed in models/separation/heldout.json (Debian packages fillets-ng-data-cs, alsa-utils,
 * hyperrogue-music, sonic-pi-samples, freedoom and the game soundtracks of training/separation/prep.py — files never
 * seen in training), deterministically: BENCH_SEPARATION_MIXTURES (default 24) mixtures of 10 s at 16 kHz, real
 * recorded speech + {music, sound effects, synthetic noise} at 0 and 5 dB SNR. Per method it
 * reports SI-SDR improvement (dB) for speech and for ambience (mean, median, per background type) and the real-time
 * factor on one core (audio seconds per processing second, single-threaded onnxruntime):
 *   mixture (sanity row, 0 dB), wiener (classical DSP baseline), model (the shipped ONNX mask net, in-process),
 *   plus one end-to-end engine row (ffmpeg decode/resample/encode included) for its real-time factor, and the peak
 *   RSS of the engine on 30 s vs 300 s inputs (bounded memory).
 * When the Debian packages are not installed the rows say so (`skipped`) instead of failing.
 * rnnoise (issue's row c): @shiguredo/rnnoise-wasm (RNNoise 0.2), 16→48→16 kHz, delay-compensated (bench/separation-rnnoise.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { decodeAudio, encodeAudio, resolveMediaBinaries, type MediaBinaries } from '../src/inference/media/index.js';
import { OnnxSeparationEngine, SeparationModel, StreamingSeparator, concatSamples } from '../src/inference/separation/index.js';
import { RNNOISE_DELAY_48K, loadRnnoise, measureRnnoiseDelay, rnnoiseSpeech } from './separation-rnnoise.js';
import { wienerSpeech } from './separation-wiener.js';
import { median } from './lib/stats.js';

const SR = 16000;
const SECONDS = 10;
/** Mixtures in the set: a multiple of 6, so that every background type meets both SNRs equally often. */
const MIXTURES = Math.max(6, Math.round(Number(process.env.BENCH_SEPARATION_MIXTURES ?? 24) / 6) * 6);
const HELDOUT = new URL('../models/separation/heldout.json', import.meta.url);

interface Heldout {
  speech: string[];
  ambience: Record<string, string[]>;
}

interface Mixture {
  category: string;
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

async function load(path: string, binaries: MediaBinaries): Promise<Float32Array> {
  const chunks: Buffer[] = [];
  for await (const c of decodeAudio(path, { sampleRate: SR, channels: 1 }, binaries)) chunks.push(c as Buffer);
  const b = Buffer.concat(chunks);
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

const rms = (x: Float32Array): number => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / Math.max(1, x.length));

async function buildSet(heldout: Heldout, binaries: MediaBinaries): Promise<Mixture[]> {
  const n = SECONDS * SR;
  const rand = rng(2024);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
  const speechFiles = heldout.speech.filter((f) => existsSync(f));
  const out: Mixture[] = [];
  const categories = ['music', 'sfx', 'noise'];
  for (let i = 0; i < MIXTURES; i++) {
    const category = categories[i % 3];
    const snrDb = i % 2 === 0 ? 0 : 5;
    const speech = new Float32Array(n);
    for (let pos = Math.floor(rand() * 0.3 * SR); pos < n - SR / 4; ) {
      const clip = await load(pick(speechFiles), binaries);
      const g = 0.1 / (rms(clip) + 1e-9);
      for (let j = 0; j < clip.length && pos + j < n; j++) speech[pos + j] = clip[j] * g;
      pos += clip.length + Math.floor((0.1 + 0.5 * rand()) * SR);
    }
    let amb = new Float32Array(n);
    if (category === 'noise') {
      let b0 = 0;
      let b1 = 0;
      for (let j = 0; j < n; j++) {
        const w = rand() * 2 - 1; // pinkish: two leaky integrators over white noise, slowly modulated
        b0 = 0.99 * b0 + 0.1 * w;
        b1 = 0.6 * b1 + w;
        amb[j] = (b0 + 0.3 * b1) * (1 + 0.5 * Math.sin((2 * Math.PI * 0.3 * j) / SR));
      }
    } else {
      const files = (heldout.ambience[category] ?? []).filter((f) => existsSync(f));
      const clip = await load(pick(files), binaries);
      if (clip.length >= n) {
        const start = Math.floor(rand() * (clip.length - n));
        amb = clip.slice(start, start + n);
      } else {
        for (let pos = Math.floor(rand() * SR); pos < n; pos += clip.length + Math.floor(rand() * SR)) {
          for (let j = 0; j < clip.length && pos + j < n; j++) amb[pos + j] += clip[j];
        }
      }
    }
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
    out.push({ category, snrDb, mix, speech, ambience: amb });
  }
  return out;
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
  run: (mix: Float32Array) => Promise<Float32Array>,
  ambience?: (mix: Float32Array, speech: Float32Array) => Float32Array,
): Promise<object> {
  const sp: number[] = [];
  const am: number[] = [];
  const byCat: Record<string, { speech: number[]; ambience: number[] }> = {};
  let busy = 0;
  for (const m of set) {
    const t0 = process.hrtime.bigint();
    const est = await run(m.mix);
    busy += Number(process.hrtime.bigint() - t0) / 1e9;
    const rest = ambience ? ambience(m.mix, est) : m.mix.map((v, i) => v - est[i]);
    const s = siSdr(est, m.speech) - siSdr(m.mix, m.speech);
    const a = siSdr(rest, m.ambience) - siSdr(m.mix, m.ambience);
    sp.push(s);
    am.push(a);
    const key = `${m.category}@${m.snrDb}dB`;
    byCat[key] ??= { speech: [], ambience: [] };
    byCat[key].speech.push(s);
    byCat[key].ambience.push(a);
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
    perBackground: Object.fromEntries(
      Object.entries(byCat).map(([k, v]) => [k, { speechSiSdriMeanDb: r2(mean(v.speech)), ambienceSiSdriMeanDb: r2(mean(v.ambience)) }]),
    ),
  };
}

/** Peak RSS (MiB) while the engine separates a generated input of `seconds` (44.1 kHz stereo noise + tone). */
async function enginePeakRss(seconds: number, dir: string, binaries: MediaBinaries): Promise<object> {
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
  const engine = new OnnxSeparationEngine({ binaries, logger: { info: () => undefined } });
  await engine.loadModel();
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const t0 = Date.now();
  await engine.separate(
    { audioPath: input, durationSec: seconds, speechPath: join(dir, `s-${seconds}`), ambiencePath: join(dir, `a-${seconds}`) },
    { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir },
  );
  clearInterval(timer);
  const wall = (Date.now() - t0) / 1000;
  return { seconds, peakRssMiB: Math.round(peak / 2 ** 20), rssGrowthMiB: Math.round((peak - base) / 2 ** 20), realTimeFactor: Math.round(seconds / wall) };
}

export async function runSeparationBench(): Promise<object[]> {
  const rows: object[] = [];
  const binaries = await resolveMediaBinaries();
  const heldout = JSON.parse(readFileSync(HELDOUT, 'utf8')) as Heldout;
  const missing = [...heldout.speech.slice(0, 1), ...Object.values(heldout.ambience).map((f) => f[0])].filter((f) => !existsSync(f));
  if (missing.length > 0) {
    rows.push({ method: 'all', skipped: `held-out sources not installed (${missing[0]}): apt-get install fillets-ng-data-cs alsa-utils hyperrogue-music sonic-pi-samples freedoom wesnoth-1.16-music warzone2100-music singularity-music planetblupi-music-ogg drascula-music asc-music` });
  } else {
    const set = await buildSet(heldout, binaries);
    // Sanity row: the mixture itself as the estimate of both stems (0 dB improvement by definition).
    rows.push(await score('mixture', set, async (mix) => mix, (mix) => mix));
    rows.push(await score('wiener (min-statistics noise estimate)', set, async (mix) => wienerSpeech(mix)));
    const model = await SeparationModel.load();
    rows.push(
      await score('model (models/separation/separator.onnx, 1 thread)', set, async (mix) => {
        const sep = new StreamingSeparator(model, 1);
        const parts: Float32Array[] = [];
        for (let i = 0; i < mix.length; i += 16000) parts.push(await sep.push(mix.subarray(i, i + 16000)));
        parts.push(await sep.finish());
        return concatSamples(parts);
      }),
    );
    // RNNoise: resampled to 48 kHz and back inside `run` (counted in its real-time factor), output shifted back by
    // the algorithmic delay; the delay is re-measured on the first mixture and reported next to the row.
    const rnnoise = await loadRnnoise();
    const measured = measureRnnoiseDelay(rnnoise, set[0].mix);
    rows.push({
      ...(await score('rnnoise (@shiguredo/rnnoise-wasm 2025.1.5, RNNoise 0.2, 16→48→16 kHz)', set, async (mix) => rnnoiseSpeech(rnnoise, mix))),
      delayCompensated48k: RNNOISE_DELAY_48K,
      delayMeasured48k: measured.lag,
    });
  }
  const dir = await mkdtemp(join(tmpdir(), 'va-sep-bench-'));
  try {
    for (const seconds of [30, 300]) rows.push({ method: 'engine end-to-end (wav 44.1 kHz stereo in/out)', ...(await enginePeakRss(seconds, dir, binaries)) });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runSeparationBench();
  console.log(JSON.stringify(rows, null, 2));
}
