import assert from 'node:assert/strict';
import { test } from 'node:test';
import { N_MELS, SAMPLE_RATE, logMel } from '../../src/inference/lipsync/features.js';
import { voiceActivity } from '../../src/inference/lipsync/voice-activity.js';

/** Deterministic white noise at `db` dBFS RMS. */
function noise(seconds: number, db: number, seed = 1): Float64Array {
  let s = seed;
  const amp = 10 ** (db / 20) * Math.sqrt(3);
  return Float64Array.from({ length: Math.round(seconds * SAMPLE_RATE) }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return amp * (2 * (s / 2 ** 32) - 1);
  });
}

/** A voiced, syllable-like sound: harmonics of 140 Hz with formant-ish weights, pulsing at 4 Hz. */
function voiced(seconds: number, db: number): Float64Array {
  const amp = 10 ** (db / 20);
  return Float64Array.from({ length: Math.round(seconds * SAMPLE_RATE) }, (_, n) => {
    const t = n / SAMPLE_RATE;
    let v = 0;
    for (let h = 1; h <= 25; h++) v += Math.sin(2 * Math.PI * 140 * h * t) / (1 + Math.abs(h * 140 - 700) / 300);
    return amp * 0.4 * v * (0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t));
  });
}

function mix(...parts: [Float64Array, number][]): Float64Array {
  const length = Math.max(...parts.map(([p, at]) => p.length + Math.round(at * SAMPLE_RATE)));
  const out = new Float64Array(length);
  for (const [p, at] of parts) p.forEach((v, i) => (out[i + Math.round(at * SAMPLE_RATE)] += v));
  return out;
}

function activity(samples: Float64Array, options = {}): Uint8Array {
  const features = logMel(samples);
  return voiceActivity(features, features.length / N_MELS, options);
}

test('room noise alone is no speech, at any level', () => {
  for (const db of [-70, -50, -30]) {
    const mask = activity(noise(3, db));
    assert.equal(mask.reduce((a, b) => a + b, 0), 0, `noise at ${db} dBFS`);
  }
  assert.equal(activity(new Float64Array(SAMPLE_RATE)).reduce((a, b) => a + b, 0), 0, 'digital silence');
});

test('speech over room noise is found, the pauses around it are not', () => {
  // 1 s noise, 1.5 s voice, 1 s noise, 1 s voice, 1 s noise; room tone 25 dB under the voice.
  const samples = mix([noise(5.5, -45), 0], [voiced(1.5, -20), 1], [voiced(1, -20), 3.5]);
  const mask = activity(samples);
  const share = (a: number, b: number) => mask.slice(a * 100, b * 100).reduce((s, v) => s + v, 0) / ((b - a) * 100);
  assert.ok(share(1.05, 2.45) > 0.95, `voice 1: ${share(1.05, 2.45)}`);
  assert.ok(share(3.55, 4.45) > 0.95, `voice 2: ${share(3.55, 4.45)}`);
  for (const [a, b] of [[0, 0.95], [2.6, 3.4], [4.6, 5.5]]) assert.equal(share(a!, b!), 0, `pause ${a}–${b}`);
});

test('short gaps inside speech stay speech; short bursts in a pause are dropped', () => {
  const samples = mix([noise(4, -50), 0], [voiced(0.6, -20), 1], [voiced(0.6, -20), 1.75], [voiced(0.03, -15), 3.2]);
  const mask = activity(samples);
  // 150 ms gap between the two voiced stretches (1.6–1.75 s): filled.
  assert.ok(mask.slice(160, 175).every((v) => v === 1), [...mask.slice(150, 185)].join(''));
  // A 30 ms click at 3.2 s: not speech.
  assert.ok(mask.slice(300, 400).every((v) => v === 0), [...mask.slice(300, 400)].join(''));
  // With a shorter hangover the gap opens.
  assert.ok(activity(samples, { hangoverMs: 50 }).slice(162, 173).some((v) => v === 0));
});
