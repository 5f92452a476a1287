import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';

const run = promisify(execFile);

const SENTENCES = [
  'Good evening and welcome to the news.',
  'Today the city council met to discuss the new park by the river.',
  'Markets were calm, while the weather stayed warm and bright across the valley.',
  'Our reporter spoke with people about buses, bicycles and the price of bread.',
  'In sport, the home team won a close match after a long and patient game.',
  'Finally, a small museum opened its doors to visitors from many countries.',
];

/** Makes a speech recording of exactly `seconds` (espeak-ng, repeated and trimmed), as 16-bit mono wav. */
export async function makeSpeech(dir: string, seconds: number, ffmpegPath: string): Promise<string> {
  const once = join(dir, 'speech-once.wav');
  await run('espeak-ng', ['-s', '160', '-w', once, SENTENCES.join(' ')]);
  const out = join(dir, `speech-${seconds}s.wav`);
  await run(ffmpegPath, ['-v', 'error', '-y', '-stream_loop', '-1', '-i', once, '-t', String(seconds), '-ac', '1', '-ar', '22050', out]);
  return out;
}
