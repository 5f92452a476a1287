import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { videoFrameCount } from '../../src/inference/lipsync/mouth-track.js';
import { wavFile } from '../../src/testing/wav.js';

const dir = mkdtempSync(join(tmpdir(), 'lipsync-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** espeak-ng speech with `pad` seconds of digital silence on both sides (16-bit mono wav). */
function synthesize(text: string, pad: number): { path: string; durationSec: number; speechSec: number; onsetSec: number } {
  const raw = join(dir, 'speech.wav');
  try {
    execFileSync('espeak-ng', ['-v', 'en', '-s', '130', '-w', raw, text]);
  } catch (error) {
    // A missing tool fails the test (never skips it): .ci/run installs espeak-ng.
    throw new Error(`espeak-ng could not make the test speech (apt-get install espeak-ng): ${(error as Error).message}`);
  }
  const wav = readFileSync(raw);
  const rate = wav.readUInt32LE(24);
  const dataAt = wav.indexOf('data') + 8;
  const speech = wav.subarray(dataAt, wav.length - (wav.length - dataAt) % 2);
  const silence = Buffer.alloc(Math.round(pad * rate) * 2);
  const pcm = Buffer.concat([silence, speech, silence]);
  const path = join(dir, 'padded.wav');
  writeFileSync(path, wavFile(pcm, rate));
  let first = 0;
  while (first * 2 < speech.length && Math.abs(speech.readInt16LE(first * 2)) < 600) first++;
  return { path, durationSec: pcm.length / 2 / rate, speechSec: speech.length / 2 / rate, onsetSec: pad + first / rate };
}


test('"papa mama": closed in the silences, open in speech, closures at p/m', async () => {
  const fps = 25;
  const pad = 1;
  const { path, durationSec, speechSec } = synthesize('papa mama', pad);
  const analyzer = new OnnxMouthAnalyzer();
  const { shapes, frames } = await analyzer.analyzeDetailed(path, fps);
  assert.equal(shapes.length, videoFrameCount(durationSec, fps));
  assert.equal(frames, Math.ceil((durationSec * 16000) / 160));

  const silenceEnd = Math.floor((pad - 0.1) * fps); // frames fully inside the leading silence
  const trailingStart = Math.ceil((pad + speechSec + 0.25) * fps);
  for (const i of [...Array(silenceEnd).keys(), ...Array.from({ length: shapes.length - trailingStart }, (_, k) => trailingStart + k)]) {
    assert.ok(shapes[i].open < 0.1 && shapes[i].closed > 0.8, `frame ${i} in silence: ${JSON.stringify(shapes[i])}`);
  }
  const speech = shapes.slice(Math.ceil(pad * fps), Math.floor((pad + speechSec) * fps));
  const meanOpen = speech.reduce((s, m) => s + m.open, 0) / speech.length;
  assert.ok(meanOpen > 0.2, `mean openness in speech ${meanOpen}`);
  assert.ok(Math.max(...speech.map((m) => m.open)) > 0.5);
  // p-a-p-a m-a-m-a: the lips close between the open vowels at least three times
  let closures = 0;
  for (let i = 1; i < speech.length; i++) if (speech[i].closed > 0.5 && speech[i - 1].closed <= 0.5) closures++;
  assert.ok(closures >= 3, `closures ${closures}: ${speech.map((m) => m.closed.toFixed(2)).join(' ')}`);
});

test('the mouth opens within one video frame of a vowel-initial onset', async () => {
  const fps = 25;
  const { path, onsetSec } = synthesize('hello, how are you', 1);
  const shapes = await new OnnxMouthAnalyzer().analyze(path, fps);
  const onsetFrame = Math.floor(onsetSec * fps);
  for (let i = 0; i < onsetFrame - 2; i++) assert.ok(shapes[i].open < 0.05, `frame ${i} before onset`);
  const opening = Math.max(shapes[onsetFrame].open, shapes[onsetFrame + 1].open);
  assert.ok(opening > 0.1, `open at onset frame ${onsetFrame}: ${opening}`);
});

test('an aborted signal rejects the analysis', async () => {
  const { path } = synthesize('hello', 0.2);
  await assert.rejects(new OnnxMouthAnalyzer().analyze(path, 25, AbortSignal.abort()));
});

test('a duration the caller already probed sets the number of frames', async () => {
  const { path } = synthesize('hello', 0.2);
  const own = await new OnnxMouthAnalyzer().analyze(path, 25);
  const given = await new OnnxMouthAnalyzer().analyze(path, 25, undefined, 4);
  assert.equal(given.length, 100);
  assert.notEqual(own.length, 100);
  // Past the decoded audio the mouth rests.
  assert.ok(given.slice(own.length + 2).every((m) => m.open < 0.05 && m.closed > 0.8));
});
