/** The landmarks of a video face, to and from their stored form (16-bit integers in 1/8 pixel, base64). */
import { VIDEO_LANDMARK_SCALE, type VideoFaceData } from '../../domain/avatar/video-face.js';

/** The landmarks of every frame, decoded from {@link VideoFaceData.landmarks}: `frames × 136` pixels. */
export function decodeVideoLandmarks(data: Pick<VideoFaceData, 'landmarks' | 'frames'>): Float32Array {
  const bytes = Buffer.from(data.landmarks, 'base64');
  if (bytes.length !== data.frames * 136 * 2) throw new Error(`the landmarks hold ${bytes.length} bytes, expected ${data.frames * 136 * 2}`);
  const out = new Float32Array(data.frames * 136);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(2 * i) / VIDEO_LANDMARK_SCALE;
  return out;
}

/** {@link VideoFaceData.landmarks} of `points` (`frames × 136` pixels). */
export function encodeVideoLandmarks(points: ArrayLike<number>): string {
  const bytes = Buffer.alloc(points.length * 2);
  for (let i = 0; i < points.length; i++) bytes.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(points[i]! * VIDEO_LANDMARK_SCALE))), 2 * i);
  return bytes.toString('base64');
}
