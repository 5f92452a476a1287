/** A video frame's size in pixels. */
export interface FrameSize {
  width: number;
  height: number;
}

/** Bounds of a requested frame size (each side; both even, as H.264 with 4:2:0 chroma needs). */
export const FRAME_SIZE_LIMITS = { min: 256, max: 1920 } as const;
