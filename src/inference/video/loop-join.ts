/**
 * The prepared clip's loop join in a job. The preparation makes the join the clip's own step (its last frame is the
 * source frame before its first), but in the prepared mp4 the first frame is an intra frame and the last one is not:
 * their coding noise differs, which shows as a small jump on a still background each time the clip plays again. The
 * first {@link EASE_FRAMES} frames of each new pass are therefore eased from the last frame shown: the difference
 * between the two (coding noise, and the clip's own step there) is carried into the new pass and faded out over them,
 * so that no single step holds it. The lower face is drawn afterwards, as on every frame.
 */

/** Frames over which the join's difference fades. */
export const EASE_FRAMES = 5;

/** Eases the starts of a clip's passes (see the module comment); one per video, frames of one size. */
export class LoopJoinEase {
  private last: Uint8Array | undefined;
  private difference: Int16Array | undefined;

  /** Keeps `frame` (the decoded frame, before anything is drawn on it) as the last of its pass. */
  hold(frame: Uint8Array): void {
    this.last ??= new Uint8Array(frame.length);
    this.last.set(frame);
  }

  /**
   * Eases `frame`, the clip's frame `index` of a pass after the first (a pass's frame 0 after {@link hold} was given
   * the previous pass's last), in place.
   */
  ease(frame: Uint8Array, index: number): void {
    if (!this.last || index >= EASE_FRAMES) return;
    if (index === 0) {
      this.difference ??= new Int16Array(frame.length);
      for (let i = 0; i < frame.length; i++) this.difference[i] = this.last[i]! - frame[i]!;
    }
    const difference = this.difference;
    if (!difference) return;
    const w = 1 - (index + 1) / (EASE_FRAMES + 1);
    for (let i = 0; i < frame.length; i++) {
      const v = frame[i]! + Math.round(w * difference[i]!);
      frame[i] = v < 0 ? 0 : v > 255 ? 255 : v;
    }
  }
}
