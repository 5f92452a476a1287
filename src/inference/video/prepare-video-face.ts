/**
 * The preparation of a video avatar: a person's clip becomes a prepared face (docs/video-avatars.md). Three streamed
 * passes over the clip, each holding a few frames at most:
 *
 * 1. tracking: every frame decoded (upright, constant rate, at most 1920×1080), the face found in it (face-tracker),
 *    a thumbnail kept for the loop; the clip's length, the face's presence and size checked;
 * 2. cutting: the landmarks smoothed in time, the mouths measured, the neutral frames, the atlas's mouths and the
 *    loop chosen; the chosen frames' lower faces cut out (the atlas);
 * 3. rendering: every frame of the loop with its lower face at rest (the nearest neutral frame's, warped and blended:
 *    patch-renderer), the loop's end mixed into its start, encoded as the prepared clip; preview and thumbnail.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import { MIN_FACE_HEIGHT_PX } from '../../domain/avatar/photo.js';
import { VIDEO_FACE_FORMAT, type AtlasEntry, type VideoFace, type VideoFaceData } from '../../domain/avatar/video-face.js';
import type { MediaBinaries } from '../media/binaries.js';
import { openVideoEncoder, type VideoEncoderSettings } from '../media/encode-video.js';
import { yuv420Bytes } from '../media/raw-video.js';
import { boxOf } from '../photo/local-curve.js';
import { thumbnailSquare } from '../photo/photo-still.js';
import { writePng } from '../render/write-png.js';
import { packAtlas, writeAtlas, type AtlasCrop } from './atlas-image.js';
import { normalisedGeometry, probeClip, type ClipGeometry } from './clip-probe.js';
import { decodeClip } from './decode-clip.js';
import { VideoAvatarError } from './errors.js';
import { facePose, measureMouth, shapeOf } from './face-geometry.js';
import { boundsOf, FaceTracker } from './face-tracker.js';
import { encodeVideoLandmarks } from './landmark-codec.js';
import { chooseLoop, lumaSample, lumaThumb, poseVector, sampleStep, type LoopFrame } from './loop-points.js';
import { chooseAtlas, chooseNeutral, openingScale, poseDistance, restMouth, type FrameFacts } from './mouth-choice.js';
import { PatchRenderer, type EntryImage } from './patch-renderer.js';
import { fillGaps, smoothTrack } from './smooth-track.js';
import { yuvFrameCanvas } from './yuv-canvas.js';
import { mixFrames, yuvBoxToRgba, type PixelBox } from './yuv-pixels.js';

/** The files of a prepared video avatar, in its folder. */
export const VIDEO_FACE_FILES = {
  clip: 'clip.mp4',
  face: 'face.json',
  atlas: 'atlas.png',
  preview: 'preview.png',
  thumbnail: 'thumbnail.png',
} as const;

/** Shortest and longest clip (decoded), seconds. */
export const MIN_CLIP_SECONDS = 3;
export const MAX_CLIP_SECONDS = 300;
/** The largest share of the clip the face may be missing or turned away in. */
export const MAX_FACE_LOST_SHARE = 0.1;
/** A head turned further than this (half jaw widths, see `facePose`) counts as turned away. */
export const MAX_YAW = 0.8;
/** Frames without a face, at most this long (seconds), between two with one are filled in from them. */
const FILL_GAP_SECONDS = 0.4;
/** The loop's end is mixed into its start over this long (seconds). */
const CROSSFADE_SECONDS = 0.4;
/** A change of neutral frame is mixed over this many frames. */
const SWITCH_FRAMES = 6;
/** A neutral frame is changed for a nearer one only when that is nearer in pose by this much. */
const SWITCH_MARGIN = 0.05;

/** The prepared clip's H.264 settings (default): near-transparent quality, as jobs encode it once more. */
export const CLIP_ENCODER: VideoEncoderSettings = { preset: 'veryfast', crf: 17 };

/** How far the preparation is. */
export interface PrepareProgress {
  stage: 'tracking' | 'cutting' | 'rendering';
  done: number;
  /** Frames of the stage (for `tracking`, from the header's duration: an estimate). */
  total: number;
}

/** Options of {@link prepareVideoFace}. */
export interface PrepareVideoFaceOptions {
  /** The uploaded clip. */
  clipPath: string;
  /** The folder the asset's files are written into ({@link VIDEO_FACE_FILES}); made if missing. */
  outputDir: string;
  binaries: MediaBinaries;
  signal?: AbortSignal;
  onProgress?: (progress: PrepareProgress) => void;
  minSeconds?: number;
  maxSeconds?: number;
  maxLostShare?: number;
  /** The prepared clip's encoder settings (default {@link CLIP_ENCODER}). */
  encoder?: VideoEncoderSettings;
}

/** What a preparation made. */
export interface PreparedVideoFace {
  /** The files the renderer reads. */
  face: VideoFace;
  previewPath: string;
  thumbnailPath: string;
  /** Length of the prepared clip (the loop), seconds. */
  durationSec: number;
  width: number;
  height: number;
  /** Frames decoded from the upload and their duration in seconds. */
  sourceFrames: number;
  sourceDurationSec: number;
  /** Mouths in the atlas (neutral ones included) and the classes they were chosen for. */
  atlasEntries: number;
  visemes: string[];
  /** The loop's join, and the clip's median frame-to-frame change, in the same units. */
  joinDistance: number;
  medianStep: number;
}

/**
 * Prepares the clip at `options.clipPath` as a video avatar (see the module comment).
 * @throws VideoAvatarError `not_video`, `too_short`, `too_long`, `no_face`, `face_too_small`, `face_lost`.
 */
export async function prepareVideoFace(options: PrepareVideoFaceOptions): Promise<PreparedVideoFace> {
  const { clipPath, binaries, signal } = options;
  const probe = await probeClip(clipPath, binaries, signal);
  const geometry = normalisedGeometry(probe);
  await mkdir(options.outputDir, { recursive: true });
  const tracked = await track(clipPath, geometry, options, Math.ceil(probe.headerDurationSec * geometry.fps));
  const facts = examine(tracked, geometry, options);
  const plan = choose(tracked, facts, geometry);
  options.onProgress?.({ stage: 'cutting', done: 0, total: plan.cuts.length });
  const crops = await cut(clipPath, geometry, plan, tracked.points, options);
  options.onProgress?.({ stage: 'cutting', done: plan.cuts.length, total: plan.cuts.length });
  const paths = {
    fps: geometry.fps,
    clipPath: join(options.outputDir, VIDEO_FACE_FILES.clip),
    facePath: join(options.outputDir, VIDEO_FACE_FILES.face),
    atlasPath: join(options.outputDir, VIDEO_FACE_FILES.atlas),
  };
  const previewPath = join(options.outputDir, VIDEO_FACE_FILES.preview);
  const thumbnailPath = join(options.outputDir, VIDEO_FACE_FILES.thumbnail);
  const layout = packAtlas(crops.map((c) => c.crop));
  await writeAtlas(paths.atlasPath, crops.map((c) => c.crop), layout);
  const entries: AtlasEntry[] = crops.map((c, i) => ({
    x: layout.places[i]!.x,
    y: layout.places[i]!.y,
    width: c.crop.width,
    height: c.crop.height,
    points: Array.from(c.entry.points, (v) => Math.round(v * 100) / 100),
    shape: round(facts.frames[c.frame]!.shape),
    viseme: c.viseme,
    yaw: round3(facts.frames[c.frame]!.yaw),
    pitch: round3(facts.frames[c.frame]!.pitch),
    sourceFrame: c.frame,
  }));
  const neutral = crops.filter((c) => c.viseme === 'X').map((c) => ({ entry: c.entry, pose: facts.frames[c.frame]! }));
  const rendered = await render(clipPath, geometry, plan, tracked, neutral, paths.clipPath, previewPath, thumbnailPath, options);
  const data: VideoFaceData = {
    format: VIDEO_FACE_FORMAT,
    width: geometry.width,
    height: geometry.height,
    fps: geometry.fps,
    frames: plan.loop.end - plan.loop.start,
    source: {
      width: probe.width,
      height: probe.height,
      rotation: probe.rotation,
      fps: probe.fps || geometry.fps,
      frames: tracked.points.length,
      startFrame: plan.loop.start,
      endFrame: plan.loop.end,
    },
    loop: { crossfadeFrames: plan.loop.crossfade, joinDistance: round3(plan.loop.joinDistance) },
    landmarks: encodeVideoLandmarks(rendered.landmarks),
    lost: ranges(facts.lost.slice(plan.loop.start, plan.loop.end)),
    openScale: round3(facts.openScale),
    rest: round(facts.rest),
    atlas: { width: layout.width, height: layout.height, entries },
  };
  await writeFile(paths.facePath, JSON.stringify(data));
  return {
    face: paths,
    previewPath,
    thumbnailPath,
    durationSec: data.frames / geometry.fps,
    width: geometry.width,
    height: geometry.height,
    sourceFrames: tracked.points.length,
    sourceDurationSec: tracked.points.length / geometry.fps,
    atlasEntries: entries.length,
    visemes: [...new Set(entries.map((e) => e.viseme))].sort(),
    joinDistance: plan.loop.joinDistance,
    medianStep: plan.loop.medianStep,
  };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;
function round<T extends object>(values: T): T {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, round3(v as number)])) as T;
}

/** What the tracking pass keeps of each frame. */
interface Tracked {
  points: (Float32Array | undefined)[];
  thumbs: Uint8Array[];
  /** Each frame's change in detail from the one before (loop-points' `sampleStep`). */
  steps: Float32Array;
}

/** Pass 1: the face, a thumbnail and the change from the frame before of every frame; the clip's decoded length checked. */
async function track(path: string, geometry: ClipGeometry, options: PrepareVideoFaceOptions, headerFrames: number): Promise<Tracked> {
  const maxSeconds = options.maxSeconds ?? MAX_CLIP_SECONDS;
  const maxFrames = Math.ceil(maxSeconds * geometry.fps);
  const tracker = new FaceTracker(geometry.width, geometry.height);
  const points: (Float32Array | undefined)[] = [];
  const thumbs: Uint8Array[] = [];
  const steps: number[] = [];
  let sample: Uint8Array | undefined;
  const estimate = headerFrames > 0 ? Math.min(headerFrames, maxFrames) : maxFrames;
  for await (const frame of decodeClip(path, { geometry, maxFrames: maxFrames + 1, signal: options.signal }, options.binaries)) {
    if (frame.index >= maxFrames) {
      frame.release();
      throw new VideoAvatarError('too_long', `the clip lasts more than ${maxSeconds} s; a video avatar's clip lasts ${options.minSeconds ?? MIN_CLIP_SECONDS} s to ${maxSeconds} s (30 s to 2 minutes are plenty)`);
    }
    const face = await tracker.next(frame.pixels);
    points.push(face?.points);
    thumbs.push(lumaThumb(frame.pixels, geometry.width, geometry.height));
    const next = lumaSample(frame.pixels, geometry.width, geometry.height);
    steps.push(sample ? sampleStep(sample, next) : 0);
    sample = next;
    frame.release();
    if (frame.index % 25 === 0) options.onProgress?.({ stage: 'tracking', done: frame.index + 1, total: Math.max(estimate, frame.index + 1) });
  }
  const minSeconds = options.minSeconds ?? MIN_CLIP_SECONDS;
  if (points.length < minSeconds * geometry.fps) {
    throw new VideoAvatarError('too_short', `the clip lasts ${(points.length / geometry.fps).toFixed(1)} s as decoded; a video avatar's clip lasts at least ${minSeconds} s (30 s to 2 minutes are best)`);
  }
  return { points, thumbs, steps: Float32Array.from(steps) };
}

/** Per frame: the smoothed face's facts, and the clip's rest mouth and opening. */
interface Facts {
  frames: FrameFacts[];
  smoothed: Float32Array[];
  lost: boolean[];
  rest: ReturnType<typeof restMouth>;
  openScale: number;
}

/** The faces checked (present, large enough, rarely lost), filled, smoothed and measured. */
function examine(tracked: Tracked, geometry: ClipGeometry, options: PrepareVideoFaceOptions): Facts {
  const n = tracked.points.length;
  const found = tracked.points.filter((p): p is Float32Array => p !== undefined);
  if (found.length === 0) {
    throw new VideoAvatarError('no_face', 'no face was found in the clip: record the person facing the camera, the whole face in the picture and well lit');
  }
  const heights = found.map((p) => boundsOf(p).y1 - boundsOf(p).y0).sort((a, b) => a - b);
  const height = heights[heights.length >> 1]!;
  if (height < MIN_FACE_HEIGHT_PX) {
    throw new VideoAvatarError('face_too_small', `the face is ${Math.round(height)} px high (brows to chin) in the clip; it must be at least ${MIN_FACE_HEIGHT_PX} px: come closer to the camera or record at a higher resolution`);
  }
  // A face turned away counts as missing; short gaps are filled from the frames around them.
  const facing = tracked.points.map((p) => (p && Math.abs(facePose(p).yaw) <= MAX_YAW ? p : undefined));
  const filled = fillGaps(facing, Math.round(FILL_GAP_SECONDS * geometry.fps));
  const lost = filled.found.map((f) => !f);
  const lostCount = lost.filter(Boolean).length;
  const maxLost = options.maxLostShare ?? MAX_FACE_LOST_SHARE;
  if (lostCount > maxLost * n) {
    const where = ranges(lost)
      .filter(([a, b]) => b - a >= geometry.fps * 0.2)
      .slice(0, 5)
      .map(([a, b]) => `${(a / geometry.fps).toFixed(1)}–${(b / geometry.fps).toFixed(1)} s`);
    throw new VideoAvatarError(
      'face_lost',
      `the face is missing or turned away in ${Math.round((100 * lostCount) / n)} % of the clip${where.length > 0 ? ` (at ${where.join(', ')})` : ''}; it may be so in at most ${Math.round(maxLost * 100)} %: keep the whole face in the picture, turned towards the camera`,
    );
  }
  // Frames still without a face hold the nearest face found (the smoothing needs a value; they are drawn as they are).
  const held: Float32Array[] = [];
  let last = filled.frames.find((p) => p !== undefined)!;
  for (const p of filled.frames) {
    if (p) last = p;
    held.push(p ?? last);
  }
  const iods = found.map((p) => facePose(p).axes.iod).sort((a, b) => a - b);
  const smoothed = smoothTrack(held, geometry.fps, iods[iods.length >> 1]!);
  const mouths = smoothed.map((p) => measureMouth(p));
  const usableMouths = mouths.filter((_, t) => !lost[t]);
  const rest = restMouth(usableMouths.length > 0 ? usableMouths : mouths);
  const frames: FrameFacts[] = smoothed.map((p, t) => {
    const pose = facePose(p);
    const near = lost.slice(Math.max(0, t - 2), Math.min(n, t + 3)).some(Boolean);
    return { usable: !near, mouth: mouths[t]!, shape: shapeOf(mouths[t]!, rest), yaw: pose.yaw, pitch: pose.pitch };
  });
  return { frames, smoothed, lost, rest, openScale: openingScale(frames) };
}

/** What the cutting and rendering passes do. */
interface Plan {
  /** Frames to cut, with the class each is for (neutral ones are `X`). */
  cuts: { frame: number; viseme: AtlasEntry['viseme'] }[];
  loop: ReturnType<typeof chooseLoop>;
  facts: Facts;
}

function choose(tracked: Tracked, facts: Facts, geometry: ClipGeometry): Plan {
  const neutral = chooseNeutral(facts.frames, facts.rest);
  if (neutral.length === 0) {
    throw new VideoAvatarError('face_lost', 'the face is never still and closed-mouthed long enough to take its rest from; record a few seconds of the person silent, facing the camera');
  }
  const atlas = chooseAtlas(facts.frames, facts.openScale, neutral);
  const loopFrames: LoopFrame[] = facts.smoothed.map((p, t) => ({ thumb: tracked.thumbs[t]!, pose: facts.lost[t] ? undefined : poseVector(p), step: tracked.steps[t] }));
  const loop = chooseLoop(loopFrames, Math.round(CROSSFADE_SECONDS * geometry.fps), facts.lost);
  return { cuts: [...neutral.map((frame) => ({ frame, viseme: 'X' as const })), ...atlas], loop, facts };
}

/** Pass 2: the chosen frames' lower faces, cut out with their landmarks. */
async function cut(path: string, geometry: ClipGeometry, plan: Plan, _raw: Tracked['points'], options: PrepareVideoFaceOptions) {
  const wanted = new Map(plan.cuts.map((c, i) => [c.frame, i]));
  const last = Math.max(...plan.cuts.map((c) => c.frame));
  const crops: { frame: number; viseme: AtlasEntry['viseme']; crop: AtlasCrop; entry: EntryImage }[] = [];
  for await (const frame of decodeClip(path, { geometry, maxFrames: last + 1, signal: options.signal }, options.binaries)) {
    const at = wanted.get(frame.index);
    if (at !== undefined) {
      const points = plan.facts.smoothed[frame.index]!;
      const box = cropBox(points, geometry);
      const pixels = yuvBoxToRgba(frame.pixels, geometry.width, geometry.height, box);
      const local = new Float64Array(136);
      for (let k = 0; k < 136; k += 2) {
        local[k] = points[k]! - box.x0;
        local[k + 1] = points[k + 1]! - box.y0;
      }
      const crop = { pixels, width: box.x1 - box.x0, height: box.y1 - box.y0 };
      crops.push({ frame: frame.index, viseme: plan.cuts[at]!.viseme, crop, entry: { ...crop, points: local } });
    }
    frame.release();
  }
  // In the plan's order: neutral frames first.
  return plan.cuts.map((c) => crops.find((crop) => crop.frame === c.frame)!).filter(Boolean);
}

/** The lower face's crop: the jaw, nose and lips with a margin of 0.3 eye distances, inside the frame. */
function cropBox(points: Float32Array, geometry: ClipGeometry): PixelBox {
  const margin = 0.3 * facePose(points).axes.iod;
  const box = boxOf(Float64Array.from(points), CROP_POINTS, margin, geometry.width, geometry.height);
  return { x0: box.x0, y0: box.y0, x1: box.x1 + 1, y1: box.y1 + 1 };
}

/** The landmarks a crop holds: the jaw line by the mouth, the nose's lower half, the mouth's corners and bottom. */
const CROP_POINTS = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 29, 30, 31, 32, 33, 34, 35, 48, 54, 57];

/** Pass 3: the loop's frames with the lower face at rest, encoded; the landmarks as drawn; preview and thumbnail. */
async function render(
  path: string,
  geometry: ClipGeometry,
  plan: Plan,
  tracked: Tracked,
  neutral: { entry: EntryImage; pose: FrameFacts }[],
  clipPath: string,
  previewPath: string,
  thumbnailPath: string,
  options: PrepareVideoFaceOptions,
): Promise<{ landmarks: Float32Array }> {
  const { width, height, fps } = geometry;
  const { start, end, crossfade } = plan.loop;
  const { facts } = plan;
  const frames = end - start;
  const landmarks = new Float32Array(frames * 136);
  const renderer = new PatchRenderer();
  const other = new PatchRenderer();
  const kept: { pixels: Uint8Array; points: Float32Array }[] = [];
  const scratch = new Uint8Array(yuv420Bytes(width, height));
  let current = -1;
  let previous = -1;
  let switchedAt = -Infinity;
  const encoder = openVideoEncoder({ ...CLIP_ENCODER, ...options.encoder, width, height, fps, pixelFormat: 'yuv420p', outputPath: clipPath, signal: options.signal }, options.binaries);
  try {
    for await (const frame of decodeClip(path, { geometry, maxFrames: end, signal: options.signal }, options.binaries)) {
      const t = frame.index;
      if (t < start - crossfade) {
        frame.release();
        continue;
      }
      let points: Float32Array = facts.smoothed[t]!;
      if (!facts.lost[t]) {
        // The neutral frame nearest this pose; a change is mixed in over a few frames.
        const nearest = nearestNeutral(neutral, facts.frames[t]!, current);
        if (nearest !== current) {
          previous = current;
          current = nearest;
          switchedAt = t;
        }
        const mixing = previous >= 0 && t - switchedAt < SWITCH_FRAMES;
        if (mixing) scratch.set(frame.pixels);
        points = renderer.draw(frame.pixels, width, height, neutral[current]!.entry, facts.smoothed[t]!).points;
        if (mixing) {
          const before = other.draw(scratch, width, height, neutral[previous]!.entry, facts.smoothed[t]!);
          const w = (t - switchedAt + 1) / (SWITCH_FRAMES + 1);
          mixFrames(frame.pixels, scratch, width, height, 1 - w);
          points = mixPoints(points, before.points, 1 - w);
        }
      }
      if (t < start) {
        // Frames before the loop: kept for the crossfade at its end.
        kept.push({ pixels: frame.pixels.slice(), points });
        frame.release();
        continue;
      }
      const fadeIndex = t - (end - crossfade);
      if (fadeIndex >= 0 && kept.length === crossfade) {
        // The last frame is the one before the loop's start: the join is the source's own step.
        const w = (fadeIndex + 1) / crossfade;
        mixFrames(frame.pixels, kept[fadeIndex]!.pixels, width, height, w);
        points = mixPoints(points, kept[fadeIndex]!.points, w);
      }
      landmarks.set(points, (t - start) * 136);
      if (t === start) await writeStills(frame.pixels, points, geometry, previewPath, thumbnailPath);
      await encoder.write(frame.pixels, frame.release);
      if (t % 25 === 0) options.onProgress?.({ stage: 'rendering', done: t - start + 1, total: frames });
    }
    await encoder.finish();
  } catch (error) {
    await encoder.abort();
    throw error;
  }
  void tracked;
  return { landmarks };
}

/** The neutral frame for a frame of pose `pose`: the nearest, kept while no other is nearer by {@link SWITCH_MARGIN}. */
function nearestNeutral(neutral: readonly { pose: FrameFacts }[], pose: FrameFacts, current: number): number {
  let best = 0;
  let bestDistance = Infinity;
  neutral.forEach((n, i) => {
    const d = poseDistance(n.pose, pose);
    if (d < bestDistance) {
      bestDistance = d;
      best = i;
    }
  });
  if (current >= 0 && poseDistance(neutral[current]!.pose, pose) <= bestDistance + SWITCH_MARGIN) return current;
  return best;
}

function mixPoints(a: Float32Array, b: Float32Array, w: number): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! * (1 - w) + b[i]! * w;
  return out;
}

/** The preview (the prepared clip's first frame, whole) and the thumbnail (the face, 128 × 128). */
async function writeStills(frame: Uint8Array, points: Float32Array, geometry: ClipGeometry, previewPath: string, thumbnailPath: string): Promise<void> {
  const { width, height } = geometry;
  const canvas = yuvFrameCanvas(frame, width, height);
  await writePng(canvas, previewPath);
  const landmarks = {
    imageWidth: width,
    imageHeight: height,
    box: { x: 0, y: 0, width: 1, height: 1 },
    points: Array.from({ length: 68 }, (_, i) => [points[2 * i]!, points[2 * i + 1]!] as [number, number]),
    score: 1,
    model: 'video',
  };
  const { x, y, side } = thumbnailSquare(landmarks, { width, height }, { width, height });
  const thumbnail = createCanvas(128, 128);
  const tctx = thumbnail.getContext('2d');
  tctx.imageSmoothingQuality = 'high';
  tctx.drawImage(canvas, x, y, side, side, 0, 0, 128, 128);
  await writePng(thumbnail, thumbnailPath);
}

/** Runs of `true` as `[from, to)` frame ranges. */
function ranges(flags: readonly boolean[]): [number, number][] {
  const out: [number, number][] = [];
  for (let t = 0; t < flags.length; t++) {
    if (!flags[t]) continue;
    const from = t;
    while (t < flags.length && flags[t]) t++;
    out.push([from, t]);
  }
  return out;
}
