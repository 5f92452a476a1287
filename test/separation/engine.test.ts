import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import type { JobProgress } from '../../src/domain/job.js';
import type { EngineContext } from '../../src/domain/engines.js';
import { decodeAudio, probeMedia } from '../../src/inference/media/index.js';
import { OnnxSeparationEngine } from '../../src/inference/separation/index.js';
import { parseWavLayout, wavLayoutAt } from '../../src/inference/media/wav-layout.js';
import { BINARIES, decodePcm as pcm, ffmpeg } from '../helpers/media.js';

const exec = promisify(execFile);
const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
let dir: string;
const silent = { info: () => undefined };
/** SI-SDR improvement both stems must show on the tone + speech mix (measured: see training/separation/README.md). */
const MIN_GAIN_DB = 1;

// speech (espeak, low-passed at 7 kHz, as this test was written for the 8 kHz speech stem of v2) left-heavy stereo,
// 44.1 kHz; a steady 1 kHz + 3.1 kHz tone pair as ambience.
const SPEECH_FILTER = '[0:a]aresample=44100,lowpass=f=7000:poles=2,lowpass=f=7000:poles=2,volume=0.6,pan=stereo|c0=c0|c1=0.6*c0[s]';
const TONE_FILTER = '[1:a]volume=0.072,pan=stereo|c0=c0|c1=c0[t]';
const TONES = ['-f', 'lavfi', '-i', 'aevalsrc=sin(2*PI*1000*t)+0.5*sin(2*PI*3100*t):s=44100:d=30'];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-separation-'));
  const p = (n: string) => join(dir, n);
  await exec('espeak-ng', ['-s', '150', '-w', p('speech22k.wav'), 'The quick brown fox jumps over the lazy dog. Separation keeps the voice apart.']);
  await Promise.all([
    ffmpeg(['-i', p('speech22k.wav'), ...TONES, '-filter_complex', `${SPEECH_FILTER};${TONE_FILTER};[s][t]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3`, '-c:a', 'pcm_f32le', p('mix.wav')]),
    ffmpeg(['-i', p('speech22k.wav'), '-filter_complex', SPEECH_FILTER, '-map', '[s]', '-c:a', 'pcm_f32le', p('ref.wav')]),
    ffmpeg(['-f', 'lavfi', '-i', 'testsrc=duration=2:size=64x48:rate=10', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', p('noaudio.mp4')]),
  ]);
  const av = ['-f', 'lavfi', '-i', 'testsrc=duration=3:size=64x48:rate=10', '-i', p('mix.wav'), '-map', '0:v', '-map', '1:a', '-shortest', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
  await Promise.all([
    ffmpeg([...av, '-c:a', 'aac', '-ar', '48000', '-b:a', '128k', '-f', 'mp4', p('clip.mp4')]),
    ffmpeg([...av, '-c:a', 'pcm_s16le', '-ac', '1', '-ar', '22050', '-f', 'mov', p('clip.mov')]),
  ]);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * What a job passes as `durationSec`: the input's length measured by decoding (the engine never writes more). The
 * test files' headers are honest, so the probe gives it here.
 */
async function durationOf(path: string): Promise<number> {
  return (await probeMedia(path, binaries)).durationSec;
}

function context(progress: JobProgress[] = [], signal = new AbortController().signal): EngineContext {
  return { signal, onProgress: (p) => progress.push(p), workDir: dir };
}

function siSdr(est: Float32Array, ref: Float32Array): number {
  let dot = 0;
  let rr = 0;
  for (let i = 0; i < ref.length; i++) {
    dot += est[i] * ref[i];
    rr += ref[i] * ref[i];
  }
  const a = dot / rr;
  let t = 0;
  let e = 0;
  for (let i = 0; i < ref.length; i++) {
    t += (a * ref[i]) ** 2;
    e += (est[i] - a * ref[i]) ** 2;
  }
  return 10 * Math.log10(t / e);
}

test('wav stereo 44.1 kHz: stems keep rate, channels and length, sum back to the input, and move energy the right way', async (t) => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const progress: JobProgress[] = [];
  const input = join(dir, 'mix.wav');
  const out = await engine.separate(
    { audioPath: input, durationSec: await durationOf(input), speechPath: join(dir, 'wav-speech'), ambiencePath: join(dir, 'wav-ambience') },
    context(progress),
  );
  assert.deepEqual(out, { contentType: 'audio/wav', extension: 'wav' });
  for (const stem of ['wav-speech', 'wav-ambience']) {
    const probe = await probeMedia(join(dir, stem), binaries);
    assert.equal(probe.audio?.sampleRate, 44100);
    assert.equal(probe.audio?.channels, 2);
    assert.equal(probe.audio?.codec, 'pcm_s16le');
  }
  const [x, s, a, ref] = await Promise.all([
    pcm(input, 44100, 2),
    pcm(join(dir, 'wav-speech'), 44100, 2),
    pcm(join(dir, 'wav-ambience'), 44100, 2),
    pcm(join(dir, 'ref.wav'), 44100, 2),
  ]);
  assert.equal(s.length, x.length);
  assert.equal(a.length, x.length);
  let maxErr = 0;
  for (let i = 0; i < x.length; i++) maxErr = Math.max(maxErr, Math.abs(s[i] + a[i] - x[i]));
  assert.ok(maxErr < 2.5 / 32768, `speech + ambience differs from the input by ${maxErr}`);
  const n = Math.min(ref.length, x.length);
  const before = siSdr(x.subarray(0, n), ref.subarray(0, n));
  const afterSep = siSdr(s.subarray(0, n), ref.subarray(0, n));
  // The tones (ambience) must dominate the ambience stem more than they dominate the mixture.
  const noise = x.map((v, i) => v - (i < ref.length ? ref[i] : 0));
  const ambBefore = siSdr(x.subarray(0, n), noise.subarray(0, n));
  const ambAfter = siSdr(a.subarray(0, n), noise.subarray(0, n));
  const report = `speech SI-SDR ${before.toFixed(2)} → ${afterSep.toFixed(2)} dB, ambience ${ambBefore.toFixed(2)} → ${ambAfter.toFixed(2)} dB`;
  assert.ok(afterSep > before + MIN_GAIN_DB && ambAfter > ambBefore + MIN_GAIN_DB, report);
  t.diagnostic(report);
  assert.ok(progress.length > 0);
  const last = progress[progress.length - 1];
  assert.equal(last.unit, 'seconds');
  assert.equal(last.done, last.total);
});

test('a plain PCM WAV is separated without ffprobe (its header gives its format), to the stems a probed copy gives', async () => {
  // The same WAV with 70 kB of padding before its samples: past what the header reader looks at, so it is probed.
  const input = join(dir, 'mix.wav');
  const bytes = await readFile(input);
  const layout = parseWavLayout(bytes, bytes.length);
  assert.ok(layout, 'mix.wav is a plain PCM WAV');
  const junk = Buffer.alloc(8 + 70_000);
  junk.write('JUNK', 0, 'latin1');
  junk.writeUInt32LE(70_000, 4);
  const padded = Buffer.concat([bytes.subarray(0, layout.dataOffset - 8), junk, bytes.subarray(layout.dataOffset - 8)]);
  padded.writeUInt32LE(padded.length - 8, 4);
  const probedInput = join(dir, 'mix-padded.wav');
  await writeFile(probedInput, padded);
  assert.equal(await wavLayoutAt(probedInput), undefined, 'the padded copy is left to ffprobe');
  const durationSec = await durationOf(input);
  const stems = (name: string) => ({ speechPath: join(dir, `${name}-speech`), ambiencePath: join(dir, `${name}-ambience`) });
  // An ffprobe that fails: the WAV does not need it, the padded copy does.
  const noProbe = { ...binaries, ffprobePath: '/bin/false' };
  const withoutProbe = new OnnxSeparationEngine({ binaries: noProbe, logger: silent });
  await withoutProbe.separate({ audioPath: input, durationSec, ...stems('header') }, context());
  await assert.rejects(withoutProbe.separate({ audioPath: probedInput, durationSec, ...stems('no-probe') }, context()), /ffprobe/);
  await new OnnxSeparationEngine({ binaries, logger: silent }).separate({ audioPath: probedInput, durationSec, ...stems('probed') }, context());
  for (const stem of ['speech', 'ambience']) {
    const [fromHeader, probed] = await Promise.all([readFile(join(dir, `header-${stem}`)), readFile(join(dir, `probed-${stem}`))]);
    assert.ok(fromHeader.equals(probed), `${stem}: the same stem either way`);
  }
});

test('mp4 (AAC 48 kHz) and mov (PCM mono 22.05 kHz) video inputs: the audio track is separated at its own format', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  for (const [name, rate, channels] of [['clip.mp4', 48000, 2], ['clip.mov', 22050, 1]] as const) {
    const input = join(dir, name);
    const speechPath = join(dir, `${name}-speech`);
    const ambiencePath = join(dir, `${name}-ambience`);
    await engine.separate({ audioPath: input, durationSec: await durationOf(input), speechPath, ambiencePath }, context());
    const x = await pcm(input, rate, channels);
    for (const stem of [speechPath, ambiencePath]) {
      const probe = await probeMedia(stem, binaries);
      assert.equal(probe.audio?.sampleRate, rate, name);
      assert.equal(probe.audio?.channels, channels, name);
      assert.equal((await pcm(stem, rate, channels)).length, x.length, `${name}: stem length`);
    }
  }
});

test('mp3 output by option', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent, format: 'mp3', mp3BitrateKbps: 96 });
  const speechPath = join(dir, 'mp3-speech');
  const out = await engine.separate(
    { audioPath: join(dir, 'mix.wav'), durationSec: await durationOf(join(dir, 'mix.wav')), speechPath, ambiencePath: join(dir, 'mp3-ambience') },
    context(),
  );
  assert.deepEqual(out, { contentType: 'audio/mpeg', extension: 'mp3' });
  const probe = await probeMedia(speechPath, binaries);
  assert.equal(probe.audio?.codec, 'mp3');
  const expected = (await probeMedia(join(dir, 'mix.wav'), binaries)).durationSec;
  assert.ok(Math.abs(probe.durationSec - expected) < 0.1, `mp3 duration ${probe.durationSec}, input ${expected}`);
});

test('a 5.1 input with mp3 output: the decode started in the input\'s format starts again in stereo, and the stems sum to its stereo downmix', async () => {
  const input = join(dir, 'six.wav');
  await ffmpeg(['-i', join(dir, 'mix.wav'), '-t', '3', '-af', 'pan=5.1|FL=c0|FR=c1|FC=0.5*c0|LFE=0*c0|BL=0.3*c0|BR=0.3*c1', '-c:a', 'pcm_f32le', input]);
  const engine = new OnnxSeparationEngine({ binaries, logger: silent, format: 'mp3', mp3BitrateKbps: 192 });
  const speechPath = join(dir, 'six-speech.mp3');
  const ambiencePath = join(dir, 'six-ambience.mp3');
  await engine.separate({ audioPath: input, durationSec: await durationOf(input), speechPath, ambiencePath }, context());
  for (const stem of [speechPath, ambiencePath]) assert.equal((await probeMedia(stem, binaries)).audio?.channels, 2);
  // The stems add up to ffmpeg's own stereo downmix of the input (up to mp3's coding loss and its encoder delay).
  const [speech, ambience, stereo] = await Promise.all([pcm(speechPath, 44100, 2), pcm(ambiencePath, 44100, 2), pcm(input, 44100, 2)]);
  const n = Math.min(speech.length, ambience.length, stereo.length);
  let bestError = Number.POSITIVE_INFINITY;
  for (let lag = 0; lag <= 4000; lag += 2) {
    let err = 0;
    let ref = 0;
    for (let i = 0; i + lag < n; i += 7) {
      const d = speech[i + lag] + ambience[i + lag] - stereo[i];
      err += d * d;
      ref += stereo[i] * stereo[i];
    }
    bestError = Math.min(bestError, err / ref);
  }
  assert.ok(bestError < 0.05, `relative error of the sum ${bestError}`);
});

test('a 5.1 input with wav output: the stems keep its six channels (written by ffmpeg) and sum back to it', async () => {
  const input = join(dir, 'six-wav.wav');
  await ffmpeg(['-i', join(dir, 'mix.wav'), '-t', '3', '-af', 'pan=5.1|FL=c0|FR=c1|FC=0.5*c0|LFE=0*c0|BL=0.3*c0|BR=0.3*c1', '-c:a', 'pcm_f32le', input]);
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const speechPath = join(dir, 'six-speech.wav');
  const ambiencePath = join(dir, 'six-ambience.wav');
  await engine.separate({ audioPath: input, durationSec: await durationOf(input), speechPath, ambiencePath }, context());
  for (const stem of [speechPath, ambiencePath]) {
    const probe = await probeMedia(stem, binaries);
    assert.equal(probe.audio?.channels, 6);
    assert.equal(probe.audio?.codec, 'pcm_s16le');
  }
  const [speech, ambience, six] = await Promise.all([pcm(speechPath, 44100, 6), pcm(ambiencePath, 44100, 6), pcm(input, 44100, 6)]);
  assert.equal(speech.length, six.length);
  let maxErr = 0;
  for (let i = 0; i < six.length; i++) maxErr = Math.max(maxErr, Math.abs(speech[i]! + ambience[i]! - six[i]!));
  assert.ok(maxErr < 2.5 / 32768, `speech + ambience differs from the input by ${maxErr}`);
});

test('an input without audio rejects with a clear reason and writes nothing', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const speechPath = join(dir, 'none-speech');
  await assert.rejects(
    engine.separate({ audioPath: join(dir, 'noaudio.mp4'), durationSec: 2, speechPath, ambiencePath: join(dir, 'none-amb') }, context()),
    /no audio stream/,
  );
  await assert.rejects(stat(speechPath));
});

test('the stems never run past the duration of the job (the decoded length), whatever the file holds', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const speechPath = join(dir, 'capped-speech');
  const ambiencePath = join(dir, 'capped-ambience');
  await engine.separate({ audioPath: join(dir, 'mix.wav'), durationSec: 2, speechPath, ambiencePath }, context());
  for (const stem of [speechPath, ambiencePath]) {
    const samples = (await pcm(stem, 44100, 2)).length / 2;
    assert.ok(Math.abs(samples - 2 * 44100) <= 1, `${stem}: ${samples} samples, expected 2 s`);
  }
});

test('an input over maxDurationSec rejects before any work', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent, maxDurationSec: 2 });
  await assert.rejects(
    engine.separate({ audioPath: join(dir, 'mix.wav'), durationSec: 4, speechPath: join(dir, 'long-s'), ambiencePath: join(dir, 'long-a') }, context()),
    /longer than the 2 s separation limit/,
  );
});

test('abort stops the separation and leaves no partial stems', async () => {
  const engine = new OnnxSeparationEngine({ binaries, logger: silent });
  const controller = new AbortController();
  const speechPath = join(dir, 'abort-speech');
  const ambiencePath = join(dir, 'abort-ambience');
  const run = engine.separate({ audioPath: join(dir, 'mix.wav'), durationSec: 4, speechPath, ambiencePath }, context([], controller.signal));
  setTimeout(() => controller.abort(new Error('stopped by test')), 5);
  await assert.rejects(run);
  await assert.rejects(stat(speechPath));
  await assert.rejects(stat(ambiencePath));
});

test('the execution provider is logged once per model', async () => {
  const lines: { message: string; fields?: Record<string, unknown> }[] = [];
  const engine = new OnnxSeparationEngine({ binaries, logger: { info: (message, fields) => lines.push({ message, fields }) } });
  await engine.loadModel();
  await engine.loadModel();
  assert.equal(lines.length, 1);
  assert.deepEqual(lines[0].fields?.executionProviders, ['cpu']);
});
