import { copyFile, open } from 'node:fs/promises';
import type { FaceDetector, PhotoAvatarAssetRenderer } from '../../src/domain/engines.js';
import { NotAnImageError, type FaceDetection, type PhotoFace } from '../../src/domain/avatar/photo.js';
import type { FaceLandmarks } from '../../src/domain/avatar/face-landmarks.js';
import { ffmpeg, fixtures } from './media.js';

/**
 * Test portraits for the {@link FakeFaceDetector}: PNGs whose size says what the double "finds", so the service's
 * decisions (largest face, minimum height, no face) are checked without a model.
 */
export const PORTRAITS = {
  /** Two faces, 120 and 240 px high: the larger one (box y = 150) must be chosen. */
  'portrait.png': { size: '512x512', faces: [{ y: 20, height: 120 }, { y: 150, height: 240 }] },
  /** One face 60 px high: under the minimum of 96 px, and no `landmarkSpread` to say its landmarks are sure. */
  'far.png': { size: '400x300', faces: [{ y: 100, height: 60 }] },
  /** One face 60 px high whose landmarks two looks placed 3 % of the eye distance apart: sure enough to animate. */
  'far-sure.png': { size: '420x300', faces: [{ y: 100, height: 60, landmarkSpread: 0.03 }] },
  /** One face 60 px high whose two looks lie 9 % apart: too unsure. */
  'far-unsure.png': { size: '440x300', faces: [{ y: 100, height: 60, landmarkSpread: 0.09 }] },
  /** A landscape: no face. */
  'landscape.png': { size: '320x240', faces: [] },
} as const;
export type PortraitName = keyof typeof PORTRAITS;

/** Writes the test portraits into `dir` (plain colour PNGs of their sizes). */
export async function makePortraits(dir: string): Promise<void> {
  await Promise.all(
    Object.entries(PORTRAITS).map(([name, { size }]) =>
      ffmpeg(['-f', 'lavfi', '-i', `color=c=tan:s=${size}`, '-frames:v', '1', '-c:v', 'png', '-f', 'image2', `${dir}/${name}`]),
    ),
  );
}

/** 68 points spread over a box (not a real face: the service only stores them). */
function landmarksIn(width: number, height: number, box: { x: number; y: number; width: number; height: number }): FaceLandmarks {
  const points = Array.from({ length: 68 }, (_, i): [number, number] => [box.x + ((i * 7) % 17) * (box.width / 16), box.y + Math.floor(i / 17) * (box.height / 3)]);
  return { imageWidth: width, imageHeight: height, box, points, score: 0.9, model: 'test-double' };
}

/**
 * A {@link FaceDetector} double: refuses what is not a PNG (`NotAnImageError`), and "finds" the faces that
 * {@link PORTRAITS} lists for the image's size (smallest first, to show the service picks the largest itself).
 */
export class FakeFaceDetector implements FaceDetector {
  calls = 0;

  async detect(imagePath: string): Promise<FaceDetection> {
    this.calls++;
    const file = await open(imagePath, 'r');
    const head = Buffer.alloc(24);
    try {
      await file.read(head, 0, 24, 0);
    } finally {
      await file.close();
    }
    if (head.readUInt32BE(0) !== 0x89504e47) throw new NotAnImageError();
    const width = head.readUInt32BE(16);
    const height = head.readUInt32BE(20);
    const portrait = Object.values(PORTRAITS).find((p) => p.size === `${width}x${height}`);
    const faces = (portrait?.faces ?? []).map((face: { y: number; height: number; landmarkSpread?: number }) => ({
      ...landmarksIn(width, height, { x: 100, y: face.y, width: face.height * 0.8, height: face.height }),
      ...(face.landmarkSpread === undefined ? {} : { landmarkSpread: face.landmarkSpread }),
    }));
    return { imageWidth: width, imageHeight: height, faces };
  }
}

/** A {@link PhotoAvatarAssetRenderer} double copying a small png and mp4; it can hold its runs or fail them. */
export class FakePhotoRenderer implements PhotoAvatarAssetRenderer {
  /** Faces of every idle clip rendered. */
  readonly faces: PhotoFace[] = [];
  failWith?: string;
  private gate?: Promise<void>;

  /** Holds runs that start from now on until the returned function is called. */
  hold(): () => void {
    let open!: () => void;
    this.gate = new Promise<void>((resolve) => (open = resolve));
    return () => {
      this.gate = undefined;
      open();
    };
  }

  async renderIdleVideo(face: PhotoFace, _fps: number, outputPath: string, signal?: AbortSignal): Promise<void> {
    this.faces.push(face);
    await this.gate;
    signal?.throwIfAborted();
    if (this.failWith) throw new Error(this.failWith);
    await copyFile((await fixtures()).path('clip.mp4'), outputPath);
  }

  async renderPreview(_face: PhotoFace, outputPath: string): Promise<void> {
    await copyFile((await fixtures()).path('image.png'), outputPath);
  }

  async renderThumbnail(_face: PhotoFace, outputPath: string): Promise<void> {
    await copyFile((await fixtures()).path('image.png'), outputPath);
  }
}
