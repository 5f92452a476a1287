import { DESIGN_SIZE } from './layout.js';

/**
 * Share of a portrait frame's spare height (what is left above the design square scaled to the frame's width)
 * that stays above the avatar as headroom; the rest goes below it, where the torso reaches on down to the
 * bottom edge. A quarter puts the eyes at about 37 % of the height of a 1080×1920 frame, near the upper third
 * where a presenter's eyes sit in a portrait shot, instead of the head sitting in the lower half under an empty
 * backdrop.
 */
export const PORTRAIT_HEADROOM = 0.25;

/** Where the 512×512 design square lies in a frame: its scale and the frame pixel of its origin. */
export interface DesignFraming {
  scale: number;
  originX: number;
  originY: number;
}

/**
 * How the avatar is framed for a `width × height` frame: head and shoulders centred, scaled to the shorter
 * side (the height of a landscape or square frame; the width of a portrait one, so the shoulders fit). A
 * landscape or square frame stands the design square on the bottom edge; a portrait one keeps
 * {@link PORTRAIT_HEADROOM} of its spare height above it and lets the torso run down to the bottom edge. The
 * backdrop or background image covers the whole frame in every case.
 */
export function frameDesign(width: number, height: number): DesignFraming {
  const scale = Math.min(width, height) / DESIGN_SIZE;
  const spare = height - DESIGN_SIZE * scale;
  return { scale, originX: (width - DESIGN_SIZE * scale) / 2, originY: spare * PORTRAIT_HEADROOM };
}
