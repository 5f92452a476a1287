/**
 * A contact sheet of one avatar's mouth shapes: the lower face with each viseme's mouth (X, A–H, in the model's
 * order), 3 × 3 cells, each marked with its letter. It shows at a glance whether every shape is drawn in proportion
 * on that face (docs/lipsync.md keeps the bundled avatars' sheets; test/avatar/viseme-sheets.test.ts compares them).
 * Drawn from the look alone (rest pose, no idle motion, the look's backdrop), so it is the same on every run.
 */
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { lookOf } from '../../domain/avatar/definition.js';
import { VISEME_SHAPES } from '../lipsync/mouth-track.js';
import { VISEMES, type Viseme } from '../lipsync/viseme-model.js';
import { paintAvatar, REST_POSE } from './avatar-painter.js';
import { drawBackdrop } from './background.js';
import { DESIGN_SIZE, faceLayout, type Ctx } from './layout.js';

/** Cells per row, and the design-pixel window of a cell around the mouth (width, height, above the mouth). */
export const SHEET_COLUMNS = 3;
const WINDOW_W = 150;
const WINDOW_H = 110;
const ABOVE_MOUTH = 45;
/** Sheet pixels per design pixel. */
const ZOOM = 2;
const GAP = 4;

/** 5 × 7 glyphs of the viseme letters (no font needed, so the sheet is the same on every machine). */
const GLYPHS: Record<Viseme, string[]> = {
  X: ['10001', '10001', '01010', '00100', '01010', '10001', '10001'],
  A: ['01110', '10001', '10001', '11111', '10001', '10001', '10001'],
  B: ['11110', '10001', '10001', '11110', '10001', '10001', '11110'],
  C: ['01110', '10001', '10000', '10000', '10000', '10001', '01110'],
  D: ['11110', '10001', '10001', '10001', '10001', '10001', '11110'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  F: ['11111', '10000', '10000', '11110', '10000', '10000', '10000'],
  G: ['01110', '10001', '10000', '10111', '10001', '10001', '01111'],
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
};

/** Size of one cell in sheet pixels. */
export const SHEET_CELL = { width: WINDOW_W * ZOOM, height: WINDOW_H * ZOOM } as const;

/** Where cell `index` starts on the sheet. */
export function sheetCellOrigin(index: number): { x: number; y: number } {
  return {
    x: GAP + (index % SHEET_COLUMNS) * (SHEET_CELL.width + GAP),
    y: GAP + Math.floor(index / SHEET_COLUMNS) * (SHEET_CELL.height + GAP),
  };
}

function drawLetter(ctx: Ctx, viseme: Viseme, x: number, y: number): void {
  const dot = 3;
  ctx.fillStyle = 'rgba(255,255,255,0.85)';
  ctx.fillRect(x, y, 7 * dot, 9 * dot);
  ctx.fillStyle = '#202020';
  GLYPHS[viseme].forEach((row, r) => {
    [...row].forEach((bit, c) => {
      if (bit === '1') ctx.fillRect(x + (c + 1) * dot, y + (r + 1) * dot, dot, dot);
    });
  });
}

/** The contact sheet of `definition`'s visemes (see the module comment). */
export function visemeSheet(definition: AvatarDefinition): Canvas {
  const look = lookOf(definition);
  const l = faceLayout(look);
  const rows = Math.ceil(VISEMES.length / SHEET_COLUMNS);
  const sheet = createCanvas(GAP + SHEET_COLUMNS * (SHEET_CELL.width + GAP), GAP + rows * (SHEET_CELL.height + GAP));
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  const frame = createCanvas(DESIGN_SIZE * ZOOM, DESIGN_SIZE * ZOOM);
  const fctx = frame.getContext('2d');
  VISEMES.forEach((viseme, index) => {
    fctx.setTransform(1, 0, 0, 1, 0, 0);
    drawBackdrop(fctx, look, frame.width, frame.height);
    fctx.setTransform(ZOOM, 0, 0, ZOOM, 0, 0);
    paintAvatar(fctx, look, REST_POSE, VISEME_SHAPES[viseme]);
    const { x, y } = sheetCellOrigin(index);
    const sx = (l.cx - WINDOW_W / 2) * ZOOM;
    const sy = (l.mouthY - ABOVE_MOUTH) * ZOOM;
    ctx.drawImage(frame, sx, sy, SHEET_CELL.width, SHEET_CELL.height, x, y, SHEET_CELL.width, SHEET_CELL.height);
    drawLetter(ctx, viseme, x + 6, y + 6);
  });
  return sheet;
}
