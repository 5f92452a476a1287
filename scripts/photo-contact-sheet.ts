/**
 * `npx tsx scripts/photo-contact-sheet.ts [out.png] [video.mp4]`: the photo avatar's contact sheet in docs/.
 * The astronaut portrait (test/photo/fixtures) says a sentence: a real recording when Debian's
 * asterisk-core-sounds-en is installed (Allison Smith, CC-BY-SA-3.0), else espeak-ng; the lip-sync analysis gives the
 * mouth track; 20 frames spread over the sentence are drawn by the photo renderer and laid out as face
 * close-ups, each labelled with its time and mouth parameters, next to one whole frame. With a second
 * argument the whole video is also rendered there through the lip-sync engine (worker thread, H.264).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCanvas } from '@napi-rs/canvas';
import { faceLandmarksSchema } from '../src/domain/avatar/face-landmarks.js';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { resolveMediaBinaries } from '../src/inference/media/index.js';
import { PhotoFrameRenderer, photoDefinition } from '../src/inference/photo/index.js';
import { wrapText } from './sheet-text.js';

const run = promisify(execFile);
const FIXTURES = new URL('../test/photo/fixtures/', import.meta.url);
const SENTENCE = 'Good evening. My name is Eileen, and tonight we fly over the moon with two brave pilots.';
/** A real recording and what it says (Debian's asterisk-core-sounds-en, G.722). */
const RECORDING = {
  path: '/usr/share/asterisk/sounds/en/vm-intro.g722',
  text: 'Please leave your message after the tone. When done, hang up or press the pound key.',
  credit: "real speech: Allison Smith, Debian's asterisk-core-sounds-en (CC-BY-SA-3.0)",
};
const COLUMNS = 5;
const ROWS = 4;
const TILE = 200;

const out = process.argv[2] ?? 'docs/photo-avatar-contact-sheet.png';
const videoPath = process.argv[3];
const dir = await mkdtemp(join(tmpdir(), 'va-photo-sheet-'));
try {
  const binaries = await resolveMediaBinaries();
  const speech = join(dir, 'speech.wav');
  const real = existsSync(RECORDING.path);
  if (real) await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-f', 'g722', '-i', RECORDING.path, '-ac', '1', '-ar', '16000', speech]);
  else await run('espeak-ng', ['-s', '150', '-v', 'en-us+f3', '-w', speech, SENTENCE]);
  const [said, credit] = real ? [RECORDING.text, RECORDING.credit] : [SENTENCE, 'speech: espeak-ng'];
  const face = {
    imagePath: new URL('astronaut.jpg', FIXTURES).pathname,
    landmarks: faceLandmarksSchema.parse(JSON.parse(await readFile(new URL('astronaut.landmarks.json', FIXTURES), 'utf8'))),
  };
  const definition = photoDefinition(face, 25, { width: 512, height: 512 });
  const analyzer = new OnnxMouthAnalyzer({ binaries });
  const track = await analyzer.analyze(speech, definition.fps);
  if (videoPath) {
    const signal = new AbortController().signal;
    const { stdout } = await run(binaries.ffprobePath, ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', speech]);
    await new CanvasLipSyncEngine(analyzer, { binaries }).render(
      { audioPath: speech, durationSec: Number(stdout), avatar: definition, photo: face, outputPath: videoPath },
      { signal, onProgress: () => undefined, workDir: dir },
    );
  }
  const renderer = await PhotoFrameRenderer.create(definition, face);
  // Spread the picks over the speech (from its first frame that moves to its last), frames drawn in order.
  const moving = track.map((m, i) => (m.open > 0.02 || m.closed < 0.98 ? i : -1)).filter((i) => i >= 0);
  const first = Math.max(0, (moving[0] ?? 0) - 2);
  const last = moving[moving.length - 1] ?? track.length - 1;
  const picks = Array.from({ length: COLUMNS * ROWS }, (_, k) => Math.round(first + ((last - first) * k) / (COLUMNS * ROWS - 1)));
  const { rest, axes } = renderer.mesh;
  const cx = (rest[2 * 30]! + rest[2 * 8]!) / 2;
  const cy = (rest[2 * 27 + 1]! + rest[2 * 8 + 1]!) / 2 + 0.1 * axes.iod;
  const side = axes.iod * 3.4;
  const sheet = createCanvas(512 + COLUMNS * TILE, Math.max(512, ROWS * TILE));
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#111';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  const frame = createCanvas(512, 512);
  const fctx = frame.getContext('2d');
  const image = fctx.createImageData(512, 512);
  const pixels = new Uint8Array(512 * 512 * 4);
  let k = 0;
  for (let index = 0; index <= last && k < picks.length; index++) {
    const mouth = track[index]!;
    renderer.renderInto(index, mouth, pixels);
    if (index !== picks[k]) continue;
    image.data.set(pixels);
    fctx.putImageData(image, 0, 0);
    if (k === Math.floor(picks.length / 2)) ctx.drawImage(frame, 0, 0);
    const x = 512 + (k % COLUMNS) * TILE;
    const y = Math.floor(k / COLUMNS) * TILE;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(frame, cx - side / 2, cy - side / 2, side, side, x, y, TILE, TILE);
    ctx.fillStyle = 'rgba(0,0,0,0.55)';
    ctx.fillRect(x, y + TILE - 18, TILE, 18);
    ctx.fillStyle = '#fff';
    ctx.font = '12px sans-serif';
    const label = `${(index / definition.fps).toFixed(2)} s  open ${mouth.open.toFixed(2)} closed ${mouth.closed.toFixed(2)}`;
    ctx.fillText(label, x + 4, y + TILE - 5);
    k++;
  }
  ctx.fillStyle = '#fff';
  ctx.font = '15px sans-serif';
  const lines = [`"${said}"`, '', credit, 'Portrait: NASA (public domain), landmarks placed by hand.', 'Close-ups: frames spread over the sentence, with the', "mouth track's open / closed parameters."];
  const words = lines.flatMap((line) => wrapText(ctx, line, 490));
  words.forEach((line, k) => ctx.fillText(line, 12, 540 + k * 22));
  await writeFile(out, await sheet.encode('png'));
  console.log(`wrote ${out}${videoPath ? ` and ${videoPath}` : ''}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
