/**
 * The mouth atlas as an image: the entries' crops packed on shelves into one PNG (`atlas.png`), and read back into
 * the RGBA crops the renderer warps. Canvas code (native): loaded only in the video avatar's child process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createCanvas } from '@napi-rs/canvas';
import type { AtlasEntry } from '../../domain/avatar/video-face.js';
import { loadCheckedImage } from '../image/load-image.js';
import type { EntryImage } from './patch-renderer.js';

/** One crop to pack. */
export interface AtlasCrop {
  pixels: Uint8Array;
  width: number;
  height: number;
}

/** Where each crop goes in the atlas, and the atlas's size (shelves of crops, at most `maxWidth` wide). */
export function packAtlas(crops: readonly AtlasCrop[], maxWidth = 1024): { width: number; height: number; places: { x: number; y: number }[] } {
  const width = Math.max(maxWidth, ...crops.map((c) => c.width));
  const order = crops.map((_, i) => i).sort((a, b) => crops[b]!.height - crops[a]!.height);
  const places: { x: number; y: number }[] = new Array(crops.length);
  let x = 0;
  let y = 0;
  let shelf = 0;
  for (const i of order) {
    const crop = crops[i]!;
    if (x + crop.width > width) {
      y += shelf;
      x = 0;
      shelf = 0;
    }
    places[i] = { x, y };
    x += crop.width;
    shelf = Math.max(shelf, crop.height);
  }
  return { width, height: Math.max(1, y + shelf), places };
}

/** Writes the crops at their places into one PNG of `width × height`. */
export async function writeAtlas(path: string, crops: readonly AtlasCrop[], layout: ReturnType<typeof packAtlas>): Promise<void> {
  const canvas = createCanvas(layout.width, layout.height);
  const ctx = canvas.getContext('2d');
  crops.forEach((crop, i) => {
    const image = ctx.createImageData(crop.width, crop.height);
    image.data.set(crop.pixels);
    ctx.putImageData(image, layout.places[i]!.x, layout.places[i]!.y);
  });
  await writeFile(path, await canvas.encode('png'));
}

/** The entries of an atlas, cut from its image at `path`. */
export async function readAtlas(path: string, entries: readonly AtlasEntry[]): Promise<EntryImage[]> {
  const image = await loadCheckedImage(await readFile(path));
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  return entries.map((entry) => {
    if (entry.x + entry.width > image.width || entry.y + entry.height > image.height) throw new Error('an atlas entry lies outside the atlas image');
    const { data } = ctx.getImageData(entry.x, entry.y, entry.width, entry.height);
    return { pixels: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: entry.width, height: entry.height, points: Float64Array.from(entry.points) };
  });
}
