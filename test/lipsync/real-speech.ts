/**
 * Real recorded speech for the lip-sync tests, joined by pauses, with the speech and pause intervals known:
 * - the channel names that alsa-utils ships as /usr/share/sounds/alsa/*.wav ("Front center", "Rear left", …; one
 *   speaker, 48 kHz 16-bit mono; Debian package alsa-utils);
 * - phone prompts of Debian's asterisk-core-sounds-en-g722 (Allison Smith, CC-BY-SA-3.0; G.722 at 16 kHz, decoded
 *   with ffmpeg), another speaker and recording chain.
 * .ci/run installs both packages; they are read at test time, nothing of them is kept in the repository.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wavFile } from '../../src/testing/wav.js';
import { MOUTH_KEYS, type MouthShape } from '../../src/inference/lipsync/mouth.js';

export const ALSA_SOUNDS = '/usr/share/sounds/alsa';
export const PHRASES = ['Front_Center', 'Front_Left', 'Rear_Right', 'Side_Left', 'Rear_Center', 'Front_Right', 'Side_Right', 'Rear_Left'];

/** Samples (16-bit, mono) and rate of one of the alsa-utils wavs; fails, never skips, when the package is missing. */
export function alsaSound(name: string): { pcm: Int16Array; rate: number } {
  const path = join(ALSA_SOUNDS, `${name}.wav`);
  if (!existsSync(path)) throw new Error(`${path} is missing: the real-speech tests need Debian's alsa-utils (apt-get install alsa-utils)`);
  const wav = readFileSync(path);
  if (wav.readUInt16LE(22) !== 1 || wav.readUInt16LE(34) !== 16) throw new Error(`${path}: expected mono 16-bit PCM`);
  const rate = wav.readUInt32LE(24);
  const at = wav.indexOf('data') + 8;
  const bytes = wav.subarray(at, at + wav.readUInt32LE(at - 4));
  const pcm = new Int16Array(bytes.length >> 1);
  for (let i = 0; i < pcm.length; i++) pcm[i] = bytes.readInt16LE(i * 2);
  return { pcm, rate };
}

export const ASTERISK_SOUNDS = '/usr/share/asterisk/sounds/en_US_f_Allison';
export const PROMPTS = ['all-circuits-busy-now', 'agent-loginok', 'conf-onlyperson', 'vm-goodbye', 'pbx-invalid', 'auth-thankyou', 'vm-intro', 'conf-getpin'];

/** One of the asterisk prompts as 16 kHz samples; fails, never skips, when the package or ffmpeg is missing. */
export function asteriskPrompt(name: string): { pcm: Int16Array; rate: number } {
  const path = join(ASTERISK_SOUNDS, `${name}.g722`);
  if (!existsSync(path)) throw new Error(`${path} is missing: the real-speech tests need Debian's asterisk-core-sounds-en-g722`);
  const raw = execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-f', 'g722', '-i', path, '-ar', '16000', '-ac', '1', '-f', 's16le', 'pipe:1'], {
    maxBuffer: 64 << 20,
  });
  const pcm = new Int16Array(raw.length >> 1);
  for (let i = 0; i < pcm.length; i++) pcm[i] = raw.readInt16LE(i * 2);
  return { pcm, rate: 16000 };
}

export interface PausedSpeech {
  /** The wav file's bytes. */
  wav: Buffer;
  durationSec: number;
  /** [start, end) seconds of each phrase. */
  speech: [number, number][];
  /** [start, end) seconds of each pause between, before and after the phrases. */
  pauses: [number, number][];
}

/**
 * The phrases joined by `pauseSec` pauses (and one before and after), with the alsa-utils pink noise at `noiseDb`
 * dBFS added throughout as room tone (the clips were edited to digital silence around and between their words;
 * `-Infinity` keeps that). Deterministic.
 */
export function pausedSpeech(pauseSec = 1, noiseDb = -55, phrases = PHRASES): PausedSpeech {
  return joinWithPauses(phrases.map(alsaSound), pauseSec, noiseDb);
}

/** Clips of one sample rate joined by `pauseSec` pauses, with room tone at `noiseDb` dBFS throughout (see above). */
export function joinWithPauses(clips: { pcm: Int16Array; rate: number }[], pauseSec: number, noiseDb: number): PausedSpeech {
  const rate = clips[0]?.rate ?? 16000;
  if (clips.some((c) => c.rate !== rate)) throw new Error('the clips must share one sample rate');
  // The noise recording is 48 kHz; at other rates its samples are taken at the same times.
  const noise = alsaSound('Noise');
  const noiseStep = noise.rate / rate;
  const rms = Math.sqrt(noise.pcm.reduce((s, v) => s + v * v, 0) / noise.pcm.length);
  const gain = Number.isFinite(noiseDb) ? (32768 * 10 ** (noiseDb / 20)) / rms : 0;
  const parts: Int16Array[] = [];
  const speech: [number, number][] = [];
  const pauses: [number, number][] = [];
  let at = 0;
  const pause = () => {
    const n = Math.round(pauseSec * rate);
    pauses.push([at / rate, (at + n) / rate]);
    parts.push(new Int16Array(n));
    at += n;
  };
  for (const clip of clips) {
    pause();
    speech.push([at / rate, (at + clip.pcm.length) / rate]);
    parts.push(clip.pcm);
    at += clip.pcm.length;
  }
  pause();
  const pcm = Buffer.alloc(at * 2);
  let o = 0;
  let i = 0;
  for (const p of parts) {
    for (const v of p) {
      const mixed = v + Math.round(noise.pcm[Math.floor(i++ * noiseStep) % noise.pcm.length]! * gain);
      o = pcm.writeInt16LE(Math.max(-32768, Math.min(32767, mixed)), o);
    }
  }
  return { wav: wavFile(pcm, rate), durationSec: at / rate, speech, pauses };
}

/**
 * Mouth motion of video frame `i`: the summed absolute change of every mouth parameter ({@link MOUTH_KEYS}, each in
 * [0, 1], absent ones 0) from frame `i - 1`. The motion of an interval is its frames' mean.
 */
export function frameMotion(shapes: readonly MouthShape[], i: number): number {
  let sum = 0;
  for (const key of MOUTH_KEYS) sum += Math.abs((shapes[i]![key] ?? 0) - (shapes[i - 1]![key] ?? 0));
  return sum;
}

/**
 * Mean motion over the frames (each with its predecessor) inside `intervals`, shrunk by `marginSec` at both ends
 * (the opening before an onset and the closing after the last sound belong to the speech).
 */
export function meanMotion(shapes: readonly MouthShape[], fps: number, intervals: [number, number][], marginSec = 0): number {
  let sum = 0;
  let n = 0;
  for (const [a, b] of intervals) {
    const first = Math.max(1, Math.ceil((a + marginSec) * fps));
    const last = Math.min(shapes.length - 1, Math.floor((b - marginSec) * fps) - 1);
    for (let i = first; i <= last; i++) {
      sum += frameMotion(shapes, i);
      n++;
    }
  }
  return n ? sum / n : 0;
}
