/**
 * `npx tsx scripts/photo-viseme-sheet.ts [out.png] [zoom]`: the photo avatars' viseme contact sheet in docs/.
 * One row per real portrait (the astronaut fixture with its hand-placed landmarks, people cut from Debian's
 * libdlib19.1 photos and Grace Hopper's portrait as uploaded, with the built-in detector's landmarks, as
 * test/photo/photo-mouth.test.ts makes them): the uploaded photo, the frame at rest (silence), then each of the nine
 * visemes as drawn in speech (after a spoken frame), each a close-up of the lower face. `zoom` (default 2.4 eye
 * distances per tile) sets the close-up.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { PhotoFace } from '../src/domain/avatar/photo.js';
import { RESTING_MOUTH } from '../src/inference/lipsync/mouth.js';
import { VISEME_SHAPES } from '../src/inference/lipsync/mouth-track.js';
import { VISEMES } from '../src/inference/lipsync/viseme-model.js';
import { PhotoFrameRenderer, photoDefinition } from '../src/inference/photo/index.js';
import { astronaut } from '../test/photo/helpers.js';
import { HOPPER, PORTRAIT_SIZE as SIZE, PORTRAITS, portraitFace, portraitPath, uploadedFace } from '../test/photo/portraits.js';
import { wrapText } from './sheet-text.js';

const TILE = 150;
const LABEL = 150;
const out = process.argv[2] ?? 'docs/photo-avatar-visemes.png';
const zoom = Number(process.argv[3] ?? 2.4);

/** The rows: what each shows, where it comes from, and its face. */
const ROWS: ReadonlyArray<{ what: string; from: string; face: (dir: string, n: number) => Promise<PhotoFace> }> = [
  { what: 'smiling, teeth (hand-placed landmarks)', from: 'astronaut (NASA)', face: async () => astronaut() },
  ...[PORTRAITS.smiling, PORTRAITS.bald, PORTRAITS.child, PORTRAITS.clenched, PORTRAITS.moustache, PORTRAITS.closed, PORTRAITS.closedDim].map((portrait) => ({
    what: portrait.what,
    from: portrait.file,
    face: (dir: string, n: number) => portraitFace(portrait, portraitPath(dir, n)),
  })),
  { what: 'older, glasses, mouth closed, uploaded as it is', from: 'grace_hopper.jpg', face: () => uploadedFace(HOPPER) },
];

const dir = await mkdtemp(join(tmpdir(), 'va-photo-visemes-'));
try {
  const columns = ['photo', 'rest (silence)', ...VISEMES];
  const sheet = createCanvas(LABEL + columns.length * TILE, 22 + ROWS.length * TILE);
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#111';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  ctx.fillStyle = '#fff';
  ctx.font = '14px sans-serif';
  columns.forEach((name, c) => ctx.fillText(name, LABEL + c * TILE + 6, 16));
  for (const [row, { what, from, face: faceOf }] of ROWS.entries()) {
    const face = await faceOf(dir, row);
    const definition = photoDefinition(face, 25, SIZE);
    const fresh = () => PhotoFrameRenderer.create(definition, face);
    const base = await fresh();
    const frames: Uint8Array[] = [base.base, (await fresh()).render(0, RESTING_MOUTH)];
    for (const viseme of VISEMES) {
      // As in speech: after a spoken frame.
      const talking = await fresh();
      talking.render(0, VISEME_SHAPES.C);
      frames.push(talking.render(1, VISEME_SHAPES[viseme]));
    }
    const { rest, axes } = base.mesh;
    const cx = (rest[2 * 48]! + rest[2 * 54]!) / 2;
    const cy = (rest[2 * 51 + 1]! + rest[2 * 57 + 1]!) / 2 + 0.25 * axes.iod;
    const side = axes.iod * zoom;
    const y = 22 + row * TILE;
    ctx.imageSmoothingQuality = 'high';
    for (const [c, pixels] of frames.entries()) ctx.drawImage(toCanvas(pixels), cx - side / 2, cy - side / 2, side, side, LABEL + c * TILE, y, TILE, TILE);
    ctx.fillStyle = '#fff';
    ctx.font = '13px sans-serif';
    wrapText(ctx, what, LABEL - 10).forEach((line, k) => ctx.fillText(line, 6, y + 20 + 17 * k));
    ctx.fillStyle = '#aaa';
    ctx.fillText(from, 6, y + TILE - 10);
  }
  await writeFile(out, await sheet.encode('png'));
  console.log(`wrote ${out}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

function toCanvas(pixels: Uint8Array): Canvas {
  const canvas = createCanvas(SIZE.width, SIZE.height);
  const context = canvas.getContext('2d');
  const image = context.createImageData(SIZE.width, SIZE.height);
  image.data.set(pixels);
  context.putImageData(image, 0, 0);
  return canvas;
}
