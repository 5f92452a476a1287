/**
 * Every viseme of every bundled avatar, drawn on a contact sheet (src/inference/render/viseme-sheet.ts), matches its
 * golden image in docs/lipsync/visemes-<avatar>.png (shown by docs/lipsync.md) within a tolerance that anti-aliasing
 * and rasteriser versions stay under and a changed mouth does not: per cell, the mean absolute RGB difference
 * (summed over the channels, 0–765) at most 3, and the PSNR of the whole sheet at least 32 dB.
 *
 * After a deliberate change to the drawing, LOOK at the new sheets and regenerate the goldens with
 *   UPDATE_VISEME_SHEETS=1 node --import tsx --test test/avatar/viseme-sheets.test.ts
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { createCanvas, loadImage, type Canvas } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import { VISEMES } from '../../src/inference/lipsync/viseme-model.js';
import { SHEET_CELL, sheetCellOrigin, visemeSheet } from '../../src/inference/render/viseme-sheet.js';
import { builtIns } from './helpers.js';

const DOCS = new URL('../../docs/lipsync/', import.meta.url);
const MAX_CELL_DIFF = 3;
const MIN_PSNR_DB = 32;
const update = process.env.UPDATE_VISEME_SHEETS === '1';

let avatars: AvatarDefinition[];
/** Each avatar's sheet, drawn once. */
const sheets = new Map<string, Canvas>();
before(async () => {
  avatars = [...(await builtIns()).values()];
  for (const def of avatars) sheets.set(def.id, visemeSheet(def));
});

function rgba(canvas: Canvas): Uint8ClampedArray {
  return canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
}

/** Mean absolute RGB difference (summed over the channels) inside each cell, and the PSNR of the whole sheet. */
function compare(a: Uint8ClampedArray, b: Uint8ClampedArray, width: number): { cells: number[]; psnr: number } {
  const cells = VISEMES.map((_, index) => {
    const { x, y } = sheetCellOrigin(index);
    let sum = 0;
    for (let row = y; row < y + SHEET_CELL.height; row++) {
      for (let col = x; col < x + SHEET_CELL.width; col++) {
        const i = (row * width + col) * 4;
        sum += Math.abs(a[i]! - b[i]!) + Math.abs(a[i + 1]! - b[i + 1]!) + Math.abs(a[i + 2]! - b[i + 2]!);
      }
    }
    return sum / (SHEET_CELL.width * SHEET_CELL.height);
  });
  let squares = 0;
  for (let i = 0; i < a.length; i++) if (i % 4 !== 3) squares += (a[i]! - b[i]!) ** 2;
  const mse = squares / ((a.length / 4) * 3);
  return { cells, psnr: mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse) };
}

async function golden(id: string): Promise<Canvas> {
  const path = new URL(`visemes-${id}.png`, DOCS);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new Error(`${path.pathname} is missing: render it with UPDATE_VISEME_SHEETS=1 (see this file's comment)`);
  }
  const image = await loadImage(bytes);
  const canvas = createCanvas(image.width, image.height);
  canvas.getContext('2d').drawImage(image, 0, 0);
  return canvas;
}

test('each avatar\'s viseme sheet matches its golden image in docs/lipsync', async () => {
  for (const def of avatars) {
    const sheet = sheets.get(def.id)!;
    if (update) writeFileSync(new URL(`visemes-${def.id}.png`, DOCS), sheet.encodeSync('png'));
    const expected = await golden(def.id);
    assert.deepEqual([sheet.width, sheet.height], [expected.width, expected.height], `${def.id}: sheet size`);
    const { cells, psnr } = compare(rgba(sheet), rgba(expected), sheet.width);
    const worst = Math.max(...cells);
    if (worst > MAX_CELL_DIFF || psnr < MIN_PSNR_DB) {
      const out = join(mkdtempSync(join(tmpdir(), 'viseme-sheet-')), `visemes-${def.id}.png`);
      writeFileSync(out, sheet.encodeSync('png'));
      assert.fail(
        `${def.id}: the sheet differs from docs/lipsync/visemes-${def.id}.png (PSNR ${psnr.toFixed(1)} dB; per cell ` +
          `${VISEMES.map((v, i) => `${v} ${cells[i]!.toFixed(2)}`).join(', ')}); this run's sheet is ${out}`,
      );
    }
  }
});

test('every viseme looks different from every other on every avatar (P/B/M is not rest)', () => {
  for (const def of avatars) {
    const sheet = sheets.get(def.id)!;
    const cellPixels = VISEMES.map((_, index) => {
      const { x, y } = sheetCellOrigin(index);
      return sheet.getContext('2d').getImageData(x, y, SHEET_CELL.width, SHEET_CELL.height).data;
    });
    for (let i = 0; i < VISEMES.length; i++) {
      for (let j = i + 1; j < VISEMES.length; j++) {
        let sum = 0;
        for (let k = 0; k < cellPixels[i]!.length; k++) if (k % 4 !== 3) sum += Math.abs(cellPixels[i]![k]! - cellPixels[j]![k]!);
        const diff = sum / (SHEET_CELL.width * SHEET_CELL.height);
        assert.ok(diff > 1, `${def.id}: ${VISEMES[i]} and ${VISEMES[j]} look the same (${diff.toFixed(2)})`);
      }
    }
  }
});

test('the comparison catches a changed mouth: teeth drawn over the lower lip in the F/V cell', async () => {
  const def = avatars.find((d) => d.id === 'ava')!;
  const sheet = visemeSheet(def);
  const { x, y } = sheetCellOrigin(VISEMES.indexOf('G'));
  // The reported bug: a tall block of teeth hanging over the lower lip (here in sheet pixels, 2× design pixels).
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#fbf9f4';
  ctx.fillRect(x + SHEET_CELL.width / 2 - 36, y + 90, 72, 44);
  const { cells } = compare(rgba(sheet), rgba(await golden(def.id)), sheet.width);
  assert.ok(cells[VISEMES.indexOf('G')]! > MAX_CELL_DIFF, `G cell difference ${cells[VISEMES.indexOf('G')]}`);
  assert.ok(cells[VISEMES.indexOf('X')]! < MAX_CELL_DIFF / 10, 'other cells unchanged');
});
