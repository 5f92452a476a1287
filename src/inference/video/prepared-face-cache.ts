/**
 * The prepared faces read lately, kept between jobs: a video avatar child renders job after job, often with the same
 * avatar, and each would otherwise parse its face data (every frame's landmarks) and decode its atlas PNG again. A
 * face is known by its two files' paths, sizes and modification times; the last {@link KEPT} are kept. Only a blob
 * store with local files (the filesystem store) gives a job the same paths as the last: from any other (S3) each job
 * copies the files into its own work folder, so they are read again.
 */
import { readFile, stat } from 'node:fs/promises';
import { videoFaceSchema, type VideoFace, type VideoFaceData } from '../../domain/avatar/video-face.js';
import { readAtlas } from './atlas-image.js';
import type { AtlasEntryImage } from './video-frame-renderer.js';

/** A prepared face as the renderer uses it: its data, and the atlas's entries with their crops. */
export interface LoadedFace {
  data: VideoFaceData;
  entries: AtlasEntryImage[];
}

/** How many faces are kept (an atlas of a 1080p clip holds a few megabytes of crops). */
const KEPT = 2;
const kept = new Map<string, Promise<LoadedFace>>();

/** The face data and atlas of `face`, read once while its files stay the same. */
export async function loadPreparedFace(face: VideoFace): Promise<LoadedFace> {
  const [faceFile, atlasFile] = await Promise.all([stat(face.facePath), stat(face.atlasPath)]);
  const key = JSON.stringify([face.facePath, faceFile.size, faceFile.mtimeMs, face.atlasPath, atlasFile.size, atlasFile.mtimeMs]);
  let loaded = kept.get(key);
  if (loaded) {
    // Most recently used last.
    kept.delete(key);
  } else {
    loaded = read(face);
    // A failed read is not kept.
    loaded.catch(() => kept.delete(key));
  }
  kept.set(key, loaded);
  while (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return loaded;
}

async function read(face: VideoFace): Promise<LoadedFace> {
  const data = videoFaceSchema.parse(JSON.parse(await readFile(face.facePath, 'utf8')));
  const images = await readAtlas(face.atlasPath, data.atlas.entries);
  return { data, entries: data.atlas.entries.map((entry, i) => ({ data: entry, image: images[i]! })) };
}
