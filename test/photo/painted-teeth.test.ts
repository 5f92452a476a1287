/**
 * Painted teeth, for photos that do not show their own (issue #22: "bluish teeth with a white rim"): the tooth colour
 * follows the light on the skin and is never bluish; the painted teeth are never brighter than that colour (no white
 * rim), fade into the mouth's shade towards the corners, and leave the dark of the mouth between the rows.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { naturalTeeth, type Rgb } from '../../src/inference/photo/face-palette.js';
import { PaintedTeeth } from '../../src/inference/photo/painted-teeth.js';
import { luma } from '../../src/inference/photo/tooth-test.js';

/** Cheek colours sampled from real portraits (test/photo), and a face under cool light. */
const SKINS: ReadonlyArray<readonly [string, Rgb]> = [
  ['orange-lit, older (grace_hopper.jpg)', [222, 141, 103]],
  ['pale, pink (2008_001322.jpg)', [251, 188, 166]],
  ['darker (bald_guys.jpg)', [137, 100, 81]],
  ['dim (2009_004587.jpg)', [142, 104, 86]],
  ['astronaut', [215, 177, 151]],
  ['cool light', [180, 165, 172]],
];

describe('natural tooth colour', () => {
  for (const [what, skin] of SKINS) {
    it(`${what}: warm ivory, never bluish, about as bright as teeth are against that skin`, () => {
      const [r, g, b] = naturalTeeth(skin);
      assert.ok(r >= g && b <= 0.95 * g, `warm: ${[r, g, b].map(Math.round).join(',')}`);
      const ratio = luma(r, g, b) / luma(...skin);
      assert.ok(ratio >= 0.85 && ratio <= 1.7, `luma ${ratio.toFixed(2)} × the skin's`);
    });
  }

  it('takes the light: a warmer-lit face gets warmer teeth', () => {
    const warmth = (skin: Rgb) => {
      const [r, , b] = naturalTeeth(skin);
      return r / b;
    };
    assert.ok(warmth([222, 141, 103]) > warmth([215, 177, 151]) + 0.05);
  });
});

describe('painted teeth', () => {
  const W = 80;
  const colour: Rgb = [200, 188, 165];
  const teeth = (centreGap: number, grain = 0) => new PaintedTeeth({ mouthWidth: W, centreGap, teeth: 0, colour, grain });
  const out: [number, number, number] = [0, 0, 0];

  it('are never brighter than their colour (no white rim), the photo grain aside', () => {
    const grain = 2;
    const painted = teeth(0.35 * W, grain);
    for (let aside = -0.6 * W; aside <= 0.6 * W; aside += 0.5) {
      for (let fromTop = -1; fromTop <= 0.35 * W; fromTop += 0.5) {
        if (painted.paint(aside, fromTop, 0.35 * W - fromTop, 0.35 * W, out) <= 0) continue;
        for (let k = 0; k < 3; k++) assert.ok(out[k]! <= colour[k]! + 1.7 * grain + 1e-9, `(${aside}, ${fromTop}): ${out.join(',')}`);
      }
    }
  });

  it('recede into the shade towards the corners and end before them', () => {
    const painted = teeth(0.2 * W);
    const at = (aside: number) => (painted.paint(aside, 0.08 * W, 0.1 * W, 0.2 * W, out) > 0 ? luma(...out) : 0);
    assert.ok(at(0.05 * W) > at(0.33 * W) && at(0.33 * W) > at(0.48 * W) && at(0.48 * W) > 0, `${at(0.05 * W)} > ${at(0.33 * W)} > ${at(0.48 * W)} > 0`);
    assert.equal(painted.paint(0.55 * W, 0.05 * W, 0.15 * W, 0.2 * W, out), 0, 'nothing past the last tooth');
  });

  it('hang from the upper lip and leave the dark of the mouth below them; lower teeth only when it opens wide', () => {
    const wide = teeth(0.36 * W);
    assert.equal(wide.paint(0.02 * W, 0.05 * W, 0.31 * W, 0.36 * W, out), 1, 'upper teeth under the lip');
    assert.equal(wide.paint(0.02 * W, 0.2 * W, 0.16 * W, 0.36 * W, out), 0, 'the dark between the rows');
    assert.ok(wide.paint(0.02 * W, 0.33 * W, 0.03 * W, 0.36 * W, out) > 0.9, 'lower teeth on the lower lip');
    assert.equal(teeth(0.19 * W).paint(0.02 * W, 0.185 * W, 0.005 * W, 0.19 * W, out), 0, 'no lower teeth in a small opening');
  });
});
