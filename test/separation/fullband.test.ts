import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { decodeAudio } from '../../src/inference/media/index.js';
import {
  BINS,
  FullBandSeparator,
  MODEL_RATE,
  OnnxSeparationEngine,
  SeparationModel,
  concatSamples,
  fullBandSize,
} from '../../src/inference/separation/index.js';
import { FrameTransform } from '../../src/inference/separation/stft.js';
import { BINARIES, decodePcm as pcm, ffmpeg } from '../helpers/media.js';

const exec = promisify(execFile);
const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
const silent = { info: () => undefined };
/** The target: the share of a clean voice's 8–16 kHz energy that the speech stem keeps at 44.1 kHz. */
const MIN_UPPER_SHARE = 0.7;
let dir: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-fullband-'));
  // espeak-ng speaks at 22.05 kHz (sibilance up to 11 kHz); the clean voice at 44.1 kHz stereo, and the same voice
  // over a bright hiss (white noise high-passed at 6 kHz: ambience above 8 kHz) at 44.1 kHz.
  await exec('espeak-ng', ['-s', '140', '-w', join(dir, 'voice22k.wav'), 'Sixty seven silver scissors, she sells sea shells. The speech keeps its sibilance.']);
  await ffmpeg(['-i', join(dir, 'voice22k.wav'), '-ar', '44100', '-ac', '2', '-c:a', 'pcm_f32le', join(dir, 'voice.wav')]);
  await ffmpeg([
    '-i', join(dir, 'voice.wav'),
    '-f', 'lavfi', '-i', 'anoisesrc=color=white:amplitude=0.05:sample_rate=44100:duration=8:seed=3',
    '-filter_complex', '[1:a]highpass=f=6000,highpass=f=6000,pan=stereo|c0=c0|c1=c0[n];[0:a]apad[v];[v][n]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3',
    '-c:a', 'pcm_f32le', join(dir, 'hiss.wav'),
  ]);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Energy of channel 0 of interleaved `x` between `lo` and `hi` Hz (Hann-windowed 1024-point frames). */
function bandEnergy(x: Float32Array, channels: number, rate: number, lo: number, hi: number): number {
  const ft = new FrameTransform(1024);
  const spec = new Float32Array(2 * ft.bins);
  let e = 0;
  for (let off = 0; off + 1024 <= x.length / channels; off += 512) {
    ft.analyze(x, off, channels, 0, spec);
    for (let k = 0; k < ft.bins; k++) {
      const hz = (k * rate) / 1024;
      if (hz >= lo && hz < hi) e += spec[2 * k] ** 2 + spec[2 * k + 1] ** 2;
    }
  }
  return e;
}

async function separate(name: string): Promise<{ x: Float32Array; s: Float32Array; a: Float32Array }> {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const input = join(dir, `${name}.wav`);
  const speechPath = join(dir, `${name}-speech`);
  const ambiencePath = join(dir, `${name}-ambience`);
  await engine.separate({ audioPath: input, durationSec: 0, speechPath, ambiencePath }, { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir });
  const [x, s, a] = await Promise.all([pcm(input, 44100, 2), pcm(speechPath, 44100, 2), pcm(ambiencePath, 44100, 2)]);
  return { x, s, a };
}

test('44.1 kHz: a clean voice keeps at least 0.7 of its 8–16 kHz energy in the speech stem, and the stems sum back to the input', async (t) => {
  const { x, s, a } = await separate('voice');
  assert.equal(s.length, x.length);
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(s[i] + a[i] - x[i]));
  assert.ok(maxErr < 2.5 / 32768, `speech + ambience differs from the input by ${maxErr}`);
  const upper = bandEnergy(x, 2, 44100, 8000, 16000);
  assert.ok(upper > 0, 'the test voice has energy above 8 kHz');
  const share = bandEnergy(s, 2, 44100, 8000, 16000) / upper;
  const low = bandEnergy(s, 2, 44100, 100, 8000) / bandEnergy(x, 2, 44100, 100, 8000);
  t.diagnostic(`speech stem keeps ${share.toFixed(3)} of 8–16 kHz and ${low.toFixed(3)} of 0.1–8 kHz energy`);
  assert.ok(share >= MIN_UPPER_SHARE, `speech stem keeps ${share.toFixed(3)} of the voice's 8–16 kHz energy`);
});

test('44.1 kHz: hiss above 8 kHz in pauses goes to the ambience, and the stems still sum to the input', async (t) => {
  const { x, s, a } = await separate('hiss');
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(s[i] + a[i] - x[i]));
  assert.ok(maxErr < 2.5 / 32768, `speech + ambience differs from the input by ${maxErr}`);
  // The hiss outlasts the voice (8 s of noise; the tail after the voice is hiss alone): there the speech stem is quiet.
  const voiceEnd = (await pcm(join(dir, 'voice.wav'), 44100, 2)).length;
  const tailS = s.subarray(voiceEnd + 44100 * 2 * 0.3);
  const tailX = x.subarray(voiceEnd + 44100 * 2 * 0.3);
  assert.ok(tailX.length > 44100, 'the hiss outlasts the voice');
  const ratioDb = 10 * Math.log10(bandEnergy(tailS, 2, 44100, 8000, 16000) / bandEnergy(tailX, 2, 44100, 8000, 16000));
  t.diagnostic(`speech stem in the hiss-only tail, 8–16 kHz: ${ratioDb.toFixed(1)} dB relative to the input`);
  assert.ok(ratioDb < -10, `hiss-only tail: speech stem at ${ratioDb.toFixed(1)} dB of the input above 8 kHz`);
});

/** A stand-in model whose mask is a constant (test double: the mapping, not the net, is under test). */
function constantModel(value: number): SeparationModel {
  return { mask: async (_mag: Float32Array, frames: number) => new Float32Array(frames * BINS).fill(value) } as unknown as SeparationModel;
}

function noise(n: number, channels: number, seed = 7): Float32Array {
  const x = new Float32Array(n * channels);
  let s = seed;
  for (let i = 0; i < x.length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x[i] = 0.2 * (s / 2147483648 - 0.5) + 0.1 * Math.sin(i * 0.37);
  }
  return x;
}

/** Downsamples by averaging (enough for masks of a constant model, which ignore the 16 kHz content). */
function crude16k(x: Float32Array, channels: number, rate: number): Float32Array {
  const n = Math.floor(((x.length / channels) * MODEL_RATE) / rate);
  const out = new Float32Array(n * channels);
  for (let i = 0; i < n; i++) for (let c = 0; c < channels; c++) out[i * channels + c] = x[Math.floor((i * rate) / MODEL_RATE) * channels + c];
  return out;
}

async function runFullBand(model: SeparationModel, x: Float32Array, channels: number, rate: number, piece: number, chunkFrames: number) {
  const sep = new FullBandSeparator(model, channels, rate, { chunkFrames });
  const low = crude16k(x, channels, rate);
  const speech: Float32Array[] = [];
  const ambience: Float32Array[] = [];
  const lowPiece = Math.max(1, Math.round((piece * MODEL_RATE) / rate));
  let li = 0;
  for (let i = 0; i < x.length; i += piece * channels) {
    sep.pushNative(x.subarray(i, Math.min(x.length, i + piece * channels)));
    while (sep.needsLow() && li < low.length) {
      await sep.pushLow(low.subarray(li, li + lowPiece * channels));
      li += lowPiece * channels;
    }
    const out = sep.take();
    speech.push(out.speech);
    ambience.push(out.ambience);
  }
  if (li < low.length) await sep.pushLow(low.subarray(li));
  await sep.finishLow();
  sep.finishNative();
  const out = sep.take();
  speech.push(out.speech);
  ambience.push(out.ambience);
  return { speech: concatSamples(speech), ambience: concatSamples(ambience) };
}

test('FullBandSeparator: all-pass and all-stop masks give the input back in one stem at 44.1 and 48 kHz, in any pieces', async () => {
  for (const [rate, channels, n] of [[44100, 2, 100_001], [48000, 1, 30_000], [22050, 1, 5_000], [44100, 1, 300]] as const) {
    const x = noise(n, channels);
    for (const [value, stem] of [[1, 'speech'], [0, 'ambience']] as const) {
      const out = await runFullBand(constantModel(value), x, channels, rate, 4097, 40);
      assert.equal(out.speech.length, x.length, `${rate} Hz: speech length`);
      assert.equal(out.ambience.length, x.length, `${rate} Hz: ambience length`);
      let maxErr = 0;
      let sumErr = 0;
      for (let i = 0; i < x.length; i++) {
        maxErr = Math.max(maxErr, Math.abs(out[stem][i] - x[i]));
        sumErr = Math.max(sumErr, Math.abs(out.speech[i] + out.ambience[i] - x[i]));
      }
      assert.ok(maxErr < 1e-5, `${rate} Hz, mask ${value}: ${stem} differs from the input by ${maxErr}`);
      assert.ok(sumErr < 1e-6, `${rate} Hz: the stems' sum differs from the input by ${sumErr}`);
    }
  }
  assert.equal(fullBandSize(16000), 512);
  assert.equal(fullBandSize(44100), 1024);
  assert.equal(fullBandSize(48000), 1024);
});

test('FullBandSeparator: the real model gives the same stems whatever the pieces and chunks', async () => {
  const model = await SeparationModel.load();
  const x = noise(3 * 44100, 2, 11);
  const whole = await runFullBand(model, x, 2, 44100, 1_000_000, 1_000_000);
  const pieces = await runFullBand(model, x, 2, 44100, 777, 23);
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(whole.speech[i] - pieces.speech[i]));
  assert.ok(maxErr < 1e-5, `chunked differs by ${maxErr}`);
});
