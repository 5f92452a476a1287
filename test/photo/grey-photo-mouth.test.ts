/**
 * A black-and-white portrait gets the mouth its colour original gets: lips without colour cannot be told from teeth by
 * saturation (the tooth test's ratio to the lips' saturation is 0/0 there), so whether the photo shows teeth, and
 * where its inner lips' real edge lies, must come out the same as for the photo in colour.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { PhotoFace } from '../../src/domain/avatar/photo.js';
import { photoDefinition, PhotoFrameRenderer } from '../../src/inference/photo/index.js';
import { BINARIES } from '../helpers/media.js';
import { PORTRAITS, PORTRAIT_SIZE, portraitFace, portraitPath } from './portraits.js';

/** The area enclosed by the renderer's inner lips at rest (fitted to the photo's teeth where it shows them). */
function innerLipsArea(renderer: PhotoFrameRenderer): number {
  const { rest, innerUpper, innerLower } = renderer.mesh;
  const ring = [...innerUpper, ...[...innerLower].reverse().slice(1, -1)];
  let twice = 0;
  for (const [k, i] of ring.entries()) {
    const j = ring[(k + 1) % ring.length]!;
    twice += rest[2 * i]! * rest[2 * j + 1]! - rest[2 * j]! * rest[2 * i + 1]!;
  }
  return Math.abs(twice) / 2;
}

describe('photo avatars: a black-and-white portrait', { timeout: 300_000 }, () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'grey-photo-mouth-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cases = [
    ['closed', false],
    ['smiling', true],
    ['moustache', true],
    ['child', true],
  ] as const;
  for (const [n, [name, teeth]] of cases.entries()) {
    it(`${PORTRAITS[name].what}: shows teeth (${teeth}) and has its inner lips where the colour photo has them`, async () => {
      const colour = await portraitFace(PORTRAITS[name], portraitPath(dir, n));
      const greyPath = join(dir, `grey-${n}.jpg`);
      execFileSync(BINARIES.ffmpegPath, ['-y', '-loglevel', 'error', '-i', colour.imagePath, '-vf', 'format=gray,format=rgb24', '-q:v', '2', greyPath]);
      const grey: PhotoFace = { ...colour, imagePath: greyPath };
      const renderer = (face: PhotoFace) => PhotoFrameRenderer.create(photoDefinition(face, 25, PORTRAIT_SIZE), face);
      const [inColour, inGrey] = await Promise.all([renderer(colour), renderer(grey)]);
      assert.equal(inColour.photoMouth.showsTeeth, teeth, 'the colour photo (as photo-mouth.test.ts)');
      assert.equal(inGrey.photoMouth.showsTeeth, teeth, 'whether the black-and-white photo shows its teeth');
      const ratio = innerLipsArea(inGrey) / innerLipsArea(inColour);
      console.log(`# ${name}: the grey photo's inner lips enclose ${ratio.toFixed(3)} times the colour photo's area`);
      assert.ok(ratio > 0.75 && ratio < 1.33, `the inner lips enclose ${ratio.toFixed(2)} times the colour photo's area`);
    });
  }
});
