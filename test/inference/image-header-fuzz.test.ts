/**
 * The header walk (src/inference/image/image-header.ts) against Skia itself on mutated files: the guarantee that a
 * photo or background is never decoded past its limit rests on the walk reading the size Skia's decoders will
 * decode. Small JPEG, PNG and WebP files (48 × 40, no EXIF orientation) are mutated in their headers (bytes
 * changed, 0xFF fill bytes, junk, a segment repeated, a random marker put between segments, truncation; seeded,
 * `IMAGE_FUZZ_SEED` and `IMAGE_FUZZ_RUNS` to change), and every file the walk accepts and Skia decodes must decode
 * to exactly the size the walk read. A file the walk refuses is safe whatever Skia makes of it. (3 × 40 000 runs,
 * seeds 1–3, found no divergence when this was written.)
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { seededUnit } from '../../src/inference/avatar/seeded-hash.js';
import { bytesSource, readImageHeader } from '../../src/inference/image/image-header.js';

const SEED = Number(process.env.IMAGE_FUZZ_SEED ?? 20);
const RUNS = Number(process.env.IMAGE_FUZZ_RUNS ?? 1500);

/** A seeded stream of numbers in [0, 1) (the idle animation's hash, one index after another). */
function generator(seed: number): () => number {
  let index = 0;
  return () => seededUnit(String(seed), 'image header fuzz', index++);
}

/** Offsets of a well-formed JPEG's markers from SOI up to and including its first scan (SOS), and the scan's end. */
function jpegSegments(jpeg: Buffer): { starts: number[]; headerEnd: number } {
  const starts: number[] = [];
  for (let at = 2; at + 4 <= jpeg.length; at += 2 + jpeg.readUInt16BE(at + 2)) {
    starts.push(at);
    if (jpeg[at + 1] === 0xda) return { starts, headerEnd: at + 2 + jpeg.readUInt16BE(at + 2) };
  }
  throw new Error('no scan');
}

type Mutation = (bytes: Buffer, random: () => number) => Buffer;
const pick = <T>(items: readonly T[], random: () => number): T => items[Math.floor(random() * items.length)]!;
const splice = (bytes: Buffer, at: number, insert: number[] | Buffer) => Buffer.concat([bytes.subarray(0, at), Buffer.from(insert), bytes.subarray(at)]);
const randomBytes = (n: number, random: () => number, avoid?: number) =>
  Array.from({ length: n }, () => {
    let b = Math.floor(random() * 256);
    while (b === avoid) b = Math.floor(random() * 256);
    return b;
  });

function jpegMutations(jpeg: Buffer): Mutation[] {
  const { starts, headerEnd } = jpegSegments(jpeg);
  const boundary = (random: () => number) => pick(starts, random);
  return [
    (b, r) => {
      const out = Buffer.from(b);
      for (let i = 1 + Math.floor(r() * 3); i > 0; i--) out[2 + Math.floor(r() * (headerEnd - 2))] = Math.floor(r() * 256);
      return out;
    },
    (b, r) => splice(b, boundary(r), Array(1 + Math.floor(r() * 3)).fill(0xff)),
    (b, r) => splice(b, boundary(r), randomBytes(1 + Math.floor(r() * 6), r, 0xff)),
    (b, r) => {
      const at = boundary(r);
      return splice(b, boundary(r), b.subarray(at, at + 2 + b.readUInt16BE(at + 2)));
    },
    (b, r) => {
      const payload = randomBytes(Math.floor(r() * 12), r);
      const marker = [0xff, Math.floor(r() * 256), ...[(payload.length + 2) >> 8, (payload.length + 2) & 0xff], ...payload];
      return splice(b, boundary(r), r() < 0.5 ? marker : marker.slice(0, 2));
    },
    (b, r) => b.subarray(0, 2 + Math.floor(r() * (headerEnd - 2))),
  ];
}

function headerMutations(start: number, end: number): Mutation[] {
  return [
    (b, r) => {
      const out = Buffer.from(b);
      for (let i = 1 + Math.floor(r() * 3); i > 0; i--) out[start + Math.floor(r() * (end - start))] = Math.floor(r() * 256);
      return out;
    },
    (b, r) => splice(b, start + Math.floor(r() * (end - start)), randomBytes(1 + Math.floor(r() * 8), r)),
    (b, r) => b.subarray(0, Math.floor(r() * end)),
  ];
}

test(`${RUNS} mutated JPEG, PNG and WebP headers: what the walk accepts decodes to the size it read (seed ${SEED})`, { timeout: 300_000 }, async () => {
  const canvas = createCanvas(48, 40);
  const context = canvas.getContext('2d');
  context.drawImage(await loadImage(await readFile(fileURLToPath(new URL('../fixtures/faces/astronaut.jpg', import.meta.url)))), 0, 0, 48, 40);
  const bases: { name: string; bytes: Buffer; mutations: Mutation[] }[] = [];
  const jpeg = Buffer.from(await canvas.encode('jpeg', 80));
  bases.push({ name: 'jpeg', bytes: jpeg, mutations: jpegMutations(jpeg) });
  bases.push({ name: 'png', bytes: Buffer.from(await canvas.encode('png')), mutations: headerMutations(8, 33) });
  bases.push({ name: 'webp', bytes: Buffer.from(await canvas.encode('webp', 80)), mutations: headerMutations(12, 40) });
  bases.push({ name: 'webp lossless', bytes: Buffer.from(await canvas.encode('webp', 100)), mutations: headerMutations(12, 40) });

  const random = generator(SEED);
  const seen = { accepted: 0, refusedButDecoded: 0, decodedAsRead: 0 };
  const divergent: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    const base = bases[run % bases.length]!;
    const mutation = Math.floor(random() * base.mutations.length);
    const bytes = base.mutations[mutation]!(base.bytes, random);
    const header = await readImageHeader(bytesSource(bytes)).catch(() => undefined);
    const decoded = await loadImage(bytes).then(
      (image) => ({ width: image.width, height: image.height }),
      () => undefined,
    );
    if (!header) {
      if (decoded) seen.refusedButDecoded++;
      continue;
    }
    seen.accepted++;
    if (!decoded) continue;
    // Exactly: the base images carry no EXIF orientation, so nothing may turn them.
    if (decoded.width === header.width && decoded.height === header.height) seen.decodedAsRead++;
    else divergent.push(`run ${run} (${base.name}, mutation ${mutation}): the walk read ${header.width}×${header.height}, Skia decoded ${decoded.width}×${decoded.height}; bytes ${bytes.subarray(0, 64).toString('hex')}…`);
  }
  console.log(`${RUNS} mutated files: the walk accepted ${seen.accepted}, of which Skia decoded ${seen.decodedAsRead} at the size read; ${seen.refusedButDecoded} refused by the walk were decodable (refusing is safe)`);
  assert.deepEqual(divergent, [], 'every file the walk accepted decodes to the size it read');
  assert.ok(seen.decodedAsRead > RUNS / 10, `enough accepted files decoded (${seen.decodedAsRead}) for the comparison to mean something`);
});
