/**
 * Draws a video avatar's frames for a job: each frame of the prepared clip (its lower face at rest) gets the mouth
 * the lip-sync track asks for. The mouth comes from the atlas: the entry whose measured mouth is nearest the frame's
 * (the track's opening scaled to the person's own, the head's pose a little), its lips moved by the small remainder
 * with the photo avatars' motion model so that the mouth moves smoothly between entries; a shape the clip lacks is
 * drawn from the nearest neutral mouth moved all the way, with the photo avatars' painted inside. At rest the frame is
 * the prepared clip's own. Everything outside the lower face is the clip's pixels.
 */
import type { AtlasEntry, VideoFace, VideoFaceData } from '../../domain/avatar/video-face.js';
import { isRestingMouth, type MouthShape } from '../lipsync/mouth.js';
import { buildFaceMesh, type FaceMesh } from '../photo/face-mesh.js';
import { moveFace, type FaceMotion } from '../photo/face-motion.js';
import type { FacePalette } from '../photo/face-palette.js';
import { drawMovedMouth, mouthModel, type MouthModel } from '../photo/mouth-model.js';
import type { FrameMapping } from './decode-clip.js';
import { facePoints, facePose } from './face-geometry.js';
import { decodeVideoLandmarks } from './landmark-codec.js';
import { lackDistance, poseDistance, shapeDistance } from './mouth-choice.js';
import { PatchRenderer, type EntryImage } from './patch-renderer.js';
import { loadPreparedFace } from './prepared-face-cache.js';

/** An entry farther than this from the wanted mouth ({@link lackDistance}) is not used: the shape is drawn from the neutral mouth. */
export const FALLBACK_DISTANCE = 0.1;
/** The entry of the frame before is kept while it is at most this much worse than the best. */
const KEEP_MARGIN = 0.01;
/** Weight of the head's pose (squared {@link poseDistance}) in an entry's cost. */
const POSE_WEIGHT = 0.05;

/** What a frame's mouth came from (for tests and the bench). */
export type MouthSource = 'rest' | 'atlas' | 'synthesized' | 'unchanged';

/** An atlas entry with its crop (and, once needed, the mesh and colours its lips are moved and painted with). */
export interface AtlasEntryImage {
  data: AtlasEntry;
  image: EntryImage;
  mesh?: FaceMesh;
  /** The photo renderer's model of its mouth, for a shape drawn from it. */
  model?: MouthModel;
}

type Entry = AtlasEntryImage;

/** Draws a prepared video avatar's frames (see the module comment); one per video. */
export class VideoFrameRenderer {
  readonly frames: number;
  private readonly landmarks: Float32Array;
  private readonly lost: Uint8Array;
  private readonly patch = new PatchRenderer();
  private readonly neutral: Entry[];
  private last: { frame: number; entry: number } = { frame: -2, entry: -1 };
  private openPalette: Partial<FacePalette> | undefined;
  private drawn = new Uint8Array(0);
  /** Where each frame's mouth came from, frame by frame (the last {@link drawInto}). */
  lastSource: MouthSource = 'rest';

  constructor(
    readonly data: VideoFaceData,
    /** The atlas: each entry's data and crop (shared by renderers of the same face). */
    readonly entries: AtlasEntryImage[],
    /** Size of the frames drawn into and how the clip's pixels map onto them. */
    readonly width: number,
    readonly height: number,
    private readonly mapping: FrameMapping = { scale: 1, offsetX: 0, offsetY: 0 },
  ) {
    this.frames = data.frames;
    this.landmarks = decodeVideoLandmarks(data);
    this.lost = new Uint8Array(data.frames);
    for (const [from, to] of data.lost) this.lost.fill(1, from, to);
    this.neutral = entries.filter((e) => e.data.viseme === 'X');
  }

  /**
   * A renderer of the prepared face `face` (its files read once while they stay the same: prepared-face-cache),
   * drawing frames of `width × height` mapped from the clip by `mapping`.
   */
  static async create(face: VideoFace, size?: { width: number; height: number; mapping: FrameMapping }): Promise<VideoFrameRenderer> {
    const { data, entries } = await loadPreparedFace(face);
    return new VideoFrameRenderer(data, entries, size?.width ?? data.width, size?.height ?? data.height, size?.mapping);
  }

  /** The 68 points of clip frame `index` in the drawn frame's pixels. */
  pointsAt(index: number): Float64Array {
    const { scale, offsetX, offsetY } = this.mapping;
    const out = new Float64Array(136);
    const at = index * 136;
    for (let k = 0; k < 136; k += 2) {
      out[k] = this.landmarks[at + k]! * scale - offsetX;
      out[k + 1] = this.landmarks[at + k + 1]! * scale - offsetY;
    }
    return out;
  }

  /**
   * Draws `mouth` into `frame` (yuv420p, this renderer's size), which holds clip frame `index` (frames are expected
   * in order: the entry of the frame before is preferred).
   */
  drawInto(frame: Uint8Array, index: number, mouth: MouthShape): void {
    if (this.lost[index] || isRestingMouth(mouth)) {
      this.lastSource = this.lost[index] ? 'unchanged' : 'rest';
      this.last = { frame: index, entry: -1 };
      return;
    }
    const points = this.pointsAt(index);
    const pose = facePose(points);
    const target = {
      open: mouth.open * this.data.openScale,
      width: mouth.width,
      round: mouth.round,
      closed: mouth.closed,
      press: mouth.press ?? 0,
      teeth: mouth.teeth,
    };
    const chosen = this.choose(target, pose, index);
    const real = chosen !== undefined;
    const base = chosen ?? this.nearestNeutral(pose);
    this.last = { frame: index, entry: chosen ? this.entries.indexOf(chosen) : -1 };
    this.lastSource = real ? 'atlas' : 'synthesized';
    if (real) {
      this.patch.draw(frame, this.width, this.height, base.image, points, { key: base.image, lips: this.lipsFor(base, target) });
      return;
    }
    // A shape the clip lacks: the neutral mouth opened and its inside drawn as a photo avatar's (its own teeth where it
    // shows them), on its crop, then drawn like an atlas mouth.
    this.patch.draw(frame, this.width, this.height, this.drawnMouth(base, target), points, { key: base.image });
  }

  /**
   * The entry nearest `target` in the frame's pose among those open about as wide ({@link FALLBACK_DISTANCE}),
   * preferring the one drawn in the frame before; none when the clip has no mouth open about so wide.
   */
  private choose(target: AtlasEntry['shape'], pose: { yaw: number; pitch: number }, index: number): Entry | undefined {
    const cost = (entry: Entry) => {
      const shape = entry.data.shape;
      // An entry less open than wanted must be opened by warping, which shows no inside: worse than one more open.
      const short = Math.max(0, target.open - shape.open - 0.03);
      return shapeDistance(target, shape) + 4 * short * short + POSE_WEIGHT * poseDistance(entry.data, pose) ** 2;
    };
    let best: Entry | undefined;
    let bestCost = Infinity;
    for (const entry of this.entries) {
      if (lackDistance(target, entry.data.shape) > FALLBACK_DISTANCE) continue;
      const c = cost(entry);
      if (c < bestCost) {
        bestCost = c;
        best = entry;
      }
    }
    const previous = this.last.frame === index - 1 && this.last.entry >= 0 ? this.entries[this.last.entry] : undefined;
    if (previous && best && lackDistance(target, previous.data.shape) <= FALLBACK_DISTANCE && cost(previous) <= bestCost + KEEP_MARGIN) return previous;
    return best;
  }

  /** The teeth, cavity and tongue colours of the clip's most open mouth when it opens wide; none otherwise. */
  private clipPalette(): Partial<FacePalette> {
    if (this.openPalette !== undefined) return this.openPalette;
    const open = [...this.entries].sort((a, b) => b.data.shape.open - a.data.shape.open)[0];
    this.openPalette = {};
    if (open && open.data.shape.open > 0.25) {
      const { image } = open;
      const { palette } = mouthModel(image.pixels, image.width, image.height, facePoints(image.points));
      this.openPalette = { teeth: palette.teeth, cavity: palette.cavity, tongue: palette.tongue };
    }
    return this.openPalette;
  }

  private nearestNeutral(pose: { yaw: number; pitch: number }): Entry {
    return this.neutral.reduce((best, entry) => (poseDistance(entry.data, pose) < poseDistance(best.data, pose) ? entry : best), this.neutral[0] ?? this.entries[0]!);
  }

  /**
   * `entry`'s landmarks with its lips moved from its own mouth to `target` by the photo avatars' motion model (its
   * points only: the patch's warp carries the pixels there); the entry's own when they differ too little to show.
   */
  private lipsFor(entry: Entry, target: AtlasEntry['shape']): Float64Array {
    const motion = motionBetween(entry.data.shape, target);
    const still = Math.abs(motion.open) + Math.abs(motion.width) + Math.abs(motion.round) + motion.teeth < 0.01 && motion.closed === 0;
    if (still) return entry.image.points;
    const mesh = this.meshOf(entry);
    return moveFace(mesh, motion, new Float64Array(mesh.count * 2)).slice(0, 136);
  }

  private meshOf(entry: Entry): FaceMesh {
    return (entry.mesh ??= buildFaceMesh(facePoints(entry.image.points), entry.image.width, entry.image.height));
  }

  /** `entry`'s crop with its mouth moved to `target` by the photo renderer's model and its inside drawn. */
  private drawnMouth(entry: Entry, target: AtlasEntry['shape']): EntryImage {
    const { image } = entry;
    const model = (entry.model ??= mouthModel(image.pixels, image.width, image.height, facePoints(image.points)));
    const motion = motionBetween(entry.data.shape, target);
    motion.open = Math.max(0, motion.open);
    if (this.drawn.length < image.pixels.length) this.drawn = new Uint8Array(image.pixels.length);
    const pixels = this.drawn.subarray(0, image.pixels.length);
    pixels.set(image.pixels);
    const moved = new Float64Array(model.mesh.count * 2);
    drawMovedMouth(model, image.pixels, pixels, image.width, image.height, motion, moved, { ...model.palette, ...this.clipPalette() });
    return { pixels, width: image.width, height: image.height, points: moved.slice(0, 136) };
  }
}

/**
 * The photo avatars' motion (`moveFace`) that takes a mouth measured as `from` to `to`: the differences of the
 * opening, spread and rounding, the lips closed when `to` closes them, the lower lip under the teeth by what `to` adds.
 */
function motionBetween(from: AtlasEntry['shape'], to: AtlasEntry['shape']): FaceMotion {
  return {
    open: to.open - from.open,
    width: to.width - from.width,
    round: to.round - from.round,
    closed: to.closed > 0.5 ? to.closed : 0,
    teeth: Math.max(0, to.teeth - from.teeth),
    blink: 0,
    rotation: 0,
    shiftX: 0,
    shiftY: 0,
  };
}

