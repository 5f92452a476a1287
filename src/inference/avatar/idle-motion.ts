import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import { lookOf } from '../../domain/avatar/definition.js';
import { seededUnit } from './seeded-hash.js';

/** The avatar's idle pose at one frame: everything that moves without speech. */
export interface IdlePose {
  /** Eyelid closure, 0 open to 1 closed. */
  blink: number;
  /** Breathing phase in [-1, 1]; the shoulders rise with it. */
  breath: number;
  /** Head rotation in radians (positive tilts clockwise). */
  headTilt: number;
  /** Head offset in design pixels (a 512-pixel-high frame). */
  headX: number;
  headY: number;
  /** Gaze offset of the pupils in design pixels. */
  gazeX: number;
  gazeY: number;
}

const BLINK_SECONDS = 0.2;
const GAZE_SLOT_SECONDS = 1.7;

/** Closure of a blink that started `elapsed` seconds ago (0 outside the blink). */
function blinkCurve(elapsed: number): number {
  if (elapsed < 0 || elapsed > BLINK_SECONDS) return 0;
  const x = elapsed / BLINK_SECONDS;
  // Closes fast, opens a little slower.
  return x < 0.4 ? x / 0.4 : 1 - (x - 0.4) / 0.6;
}

/** Blink closure at time `t`: one blink per slot of `every` seconds, at a hashed offset. */
function blinkAt(seed: string, t: number, every: number): number {
  const slot = Math.floor(t / every);
  let closure = 0;
  // The blink of the previous slot may run into this one.
  for (const s of [slot - 1, slot]) {
    if (s < 0) continue;
    const start = (s + 0.15 + 0.7 * seededUnit(seed, 'blink', s)) * every;
    closure = Math.max(closure, blinkCurve(t - start));
    // Now and then a quick double blink.
    if (seededUnit(seed, 'double-blink', s) < 0.2) closure = Math.max(closure, blinkCurve(t - start - BLINK_SECONDS * 1.3));
  }
  return closure;
}

/** Pupil offset at time `t`: mostly looking at the camera, sometimes a small glance. */
function gazeAt(seed: string, t: number): { x: number; y: number } {
  const slot = Math.floor(t / GAZE_SLOT_SECONDS);
  if (seededUnit(seed, 'gaze-on', slot) < 0.6) return { x: 0, y: 0 };
  return { x: (seededUnit(seed, 'gaze-x', slot) - 0.5) * 5, y: (seededUnit(seed, 'gaze-y', slot) - 0.5) * 2.5 };
}

/**
 * The idle pose of `definition` at `frameIndex`. A pure function of the avatar id, its idle
 * settings and the frame index: rendering the same frame twice gives the same pose.
 */
export function idlePoseAt(definition: AvatarDefinition, frameIndex: number): IdlePose {
  const { idle } = lookOf(definition);
  const seed = definition.id;
  const t = frameIndex / definition.fps;
  const phase = seededUnit(seed, 'phase', 0) * Math.PI * 2;
  const sway = idle.sway;
  const breath = Math.sin((2 * Math.PI * t) / 4.2 + phase);
  const gaze = gazeAt(seed, t);
  return {
    blink: blinkAt(seed, t, idle.blinkEvery),
    breath: breath * idle.breath,
    headTilt: sway * 0.03 * (Math.sin((2 * Math.PI * t) / 7.3 + phase) + 0.5 * Math.sin((2 * Math.PI * t) / 3.1 + 2 * phase)),
    headX: sway * 3 * Math.sin((2 * Math.PI * t) / 5.9 + 3 * phase),
    headY: sway * 1.5 * Math.sin((2 * Math.PI * t) / 4.4 + phase) + breath * idle.breath * 0.8,
    gazeX: gaze.x,
    gazeY: gaze.y,
  };
}

/**
 * The idle pose of a seamless loop of `loopFrames` frames: the smooth motions (breath, sway) are
 * cross-faded with the following cycle so that the last frame leads back into frame 0, and no
 * blink starts too late to finish before the loop wraps. Still deterministic per frame index.
 */
export function loopedIdlePoseAt(definition: AvatarDefinition, frameIndex: number, loopFrames: number): IdlePose {
  const i = ((frameIndex % loopFrames) + loopFrames) % loopFrames;
  const now = idlePoseAt(definition, i);
  const next = idlePoseAt(definition, i + loopFrames);
  const w = i / loopFrames;
  // Frame 0 shows p(N); the blend moves to p(i) as i approaches N, i.e. back to p(N): no jump at the wrap.
  const mix = (a: number, b: number) => a * (1 - w) + b * w;
  const nearEnd = i >= loopFrames - Math.ceil(definition.fps * (BLINK_SECONDS * 2.5));
  return {
    blink: nearEnd ? 0 : now.blink,
    breath: mix(next.breath, now.breath),
    headTilt: mix(next.headTilt, now.headTilt),
    headX: mix(next.headX, now.headX),
    headY: mix(next.headY, now.headY),
    gazeX: now.gazeX,
    gazeY: now.gazeY,
  };
}

/** The idle pose of frame `frameIndex`: of a seamless loop of `loopFrames` frames when that is given. */
export function idlePoseFor(definition: AvatarDefinition, frameIndex: number, loopFrames?: number): IdlePose {
  return loopFrames ? loopedIdlePoseAt(definition, frameIndex, loopFrames) : idlePoseAt(definition, frameIndex);
}
