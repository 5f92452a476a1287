/**
 * The mouth rests in pauses on real recordings: alsa-utils' recorded channel names, and asterisk's phone prompts,
 * each joined by 1 s pauses, with room tone 25–30 dB under the voice throughout (see real-speech.ts; quieter room
 * tone is easier: the mouth rested there before voice activity gated it). Motion is defined in real-speech.ts (`frameMotion`): the summed
 * absolute change of the mouth parameters from one video frame to the next, averaged over an interval.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { PROMPTS, asteriskPrompt, joinWithPauses, meanMotion, pausedSpeech, type PausedSpeech } from './real-speech.js';

const dir = mkdtempSync(join(tmpdir(), 'lipsync-pauses-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const FPS = 25;
/** Each pause's first and last 0.2 s belong to the speech around it (the lips close after the last sound). */
const MARGIN = 0.2;

const ROOM_TONE_DB = -40;
const recordings: Record<string, () => PausedSpeech> = {
  'alsa-utils channel names': () => pausedSpeech(1, ROOM_TONE_DB),
  'asterisk phone prompts': () => joinWithPauses(PROMPTS.map(asteriskPrompt), 1, ROOM_TONE_DB),
};

for (const [name, make] of Object.entries(recordings)) {
  test(`${name} with pauses, room tone at ${ROOM_TONE_DB} dBFS: motion in pauses ≤ 15 % of motion in speech, the mouth closed`, async (t) => {
    const recording = make();
    const path = join(dir, `${name.replace(/\W+/g, '-')}.wav`);
    writeFileSync(path, recording.wav);
    const shapes = await new OnnxMouthAnalyzer().analyze(path, FPS);
    const speech = meanMotion(shapes, FPS, recording.speech);
    const pauses = meanMotion(shapes, FPS, recording.pauses, MARGIN);
    t.diagnostic(`motion: speech ${speech.toFixed(4)}, pauses ${pauses.toFixed(4)}, ratio ${(pauses / speech).toFixed(3)}`);
    assert.ok(speech > 0.1, `the mouth moves in speech: ${speech}`);
    assert.ok(pauses <= 0.15 * speech, `motion in pauses ${pauses.toFixed(4)} vs speech ${speech.toFixed(4)}`);
    for (const [a, b] of recording.pauses) {
      for (let i = Math.ceil((a + MARGIN) * FPS); i < Math.floor((b - MARGIN) * FPS); i++) {
        const m = shapes[i]!;
        assert.ok(m.open < 0.05 && m.closed > 0.9 && m.teeth < 0.05, `frame ${i} in the pause ${a.toFixed(2)}–${b.toFixed(2)} s: ${JSON.stringify(m)}`);
      }
    }
  });
}
