/**
 * Photo avatars' mouths (issue #22; part of `npm run bench photo` and `photo-render`), on real portraits (the smiling
 * one with visible teeth first; test/photo/portraits.ts) and the espeak-ng speech of the photo tests. One line per
 * portrait (test/photo/mouth-measures.ts):
 * - rest is the photo: the lowest lower-face SSIM against the covered photo moved as the frame's head is, over 5 s of
 *   silence and over every frame of the speech whose mouth is at rest (target ≥ 0.95; blinks included), and in
 *   silence against the photo unmoved (the head sway's resampling included);
 * - the mouth really opens: per open viseme, the lower-face SSIM against the same frame at rest (lower: more change),
 *   and the pixels of the mouth's dark inside it adds in AA;
 * - the teeth: the open mouth's brightest pixels in AA against the photo's at rest (their own) or the skin (painted).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PhotoFace } from '../src/domain/avatar/photo.js';
import { astronaut, newsSpeech } from '../test/photo/helpers.js';
import { measureMouth, OPEN_VISEMES } from '../test/photo/mouth-measures.js';
import { HOPPER, PORTRAITS, portraitFace, portraitPath, uploadedFace } from '../test/photo/portraits.js';
import type { BenchSection } from './lib/settings.js';
import { round } from './lib/stats.js';

export const photoMouthBench: BenchSection = async (_settings, emit) => {
  const dir = await mkdtemp(join(tmpdir(), 'va-bench-photo-mouth-'));
  try {
    const { track } = await newsSpeech(dir, 25);
    const faces: ReadonlyArray<readonly [string, (n: number) => Promise<PhotoFace>]> = [
      ...[PORTRAITS.smiling, PORTRAITS.bald, PORTRAITS.child, PORTRAITS.closed, PORTRAITS.closedDim].map(
        (portrait) => [`${portrait.file} (${portrait.what})`, (n: number) => portraitFace(portrait, portraitPath(dir, n))] as const,
      ),
      ['astronaut (smiling with teeth)', async () => astronaut()],
      ['grace_hopper.jpg (mouth closed, uploaded as it is)', () => uploadedFace(HOPPER)],
    ];
    for (const [n, [portrait, face]] of faces.entries()) {
      const m = await measureMouth(await face(n), track);
      emit({
        bench: 'photo-render',
        scenario: 'mouth at rest and open',
        portrait,
        teeth: m.showsTeeth ? "the photo's own" : 'painted',
        lowerFaceSsimSilenceMin: round(m.silence),
        lowerFaceSsimPausesMin: round(m.pauses),
        lowerFaceSsimSilenceVsUnmovedPhotoMin: round(m.silenceStill),
        restingFrames: m.resting,
        openLowerFaceSsim: Object.fromEntries(OPEN_VISEMES.map((v) => [v, round(m.open[v]!)])),
        openDarkPixelsAA: round(m.dark.D!),
        teethOpenRgb: m.teethOpen.map(Math.round),
        teethRestRgb: m.teethRest.map(Math.round),
        target: 'lowerFaceSsimSilenceMin, lowerFaceSsimPausesMin >= 0.95; openLowerFaceSsim < 0.97',
      });
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
