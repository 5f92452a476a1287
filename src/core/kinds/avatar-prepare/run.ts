import { join } from 'node:path';
import type { PhotoAvatarAssetRenderer } from '../../../domain/engines.js';
import type { PhotoFace } from '../../../domain/avatar/photo.js';
import { TOKENS } from '../../tokens.js';
import type { KindOutputs, KindRunContext } from '../kind-spec.js';
import type { AvatarPrepareJob } from './record.js';

/** Makes a photo avatar's thumbnail, preview and idle clip (the avatar keeps them: the kind's results are the owner's). */
export async function runAvatarPrepare(job: AvatarPrepareJob, context: KindRunContext): Promise<KindOutputs<AvatarPrepareJob>> {
  const renderer = context.engine<PhotoAvatarAssetRenderer>(TOKENS.PhotoAvatarRenderer, 'photo avatar renderer');
  const face: PhotoFace = { imagePath: await context.localFile(job.input.photo, 'photo'), landmarks: job.input.landmarks };
  const file = (name: string) => join(context.workDir, name);
  const total = 3;
  context.onProgress({ done: 0, total, unit: 'assets' });
  await renderer.renderThumbnail(face, file('thumbnail.png'));
  context.onProgress({ done: 1, total, unit: 'assets' });
  context.signal.throwIfAborted();
  await renderer.renderPreview(face, file('preview.png'));
  context.onProgress({ done: 2, total, unit: 'assets' });
  await renderer.renderIdleVideo(face, job.input.fps, file('idle.mp4'), context.signal);
  context.onProgress({ done: 3, total, unit: 'assets' });
  return {
    thumbnail: { path: file('thumbnail.png'), what: 'thumbnail', expected: 'png', contentType: 'image/png' },
    preview: { path: file('preview.png'), what: 'preview', expected: 'png', contentType: 'image/png' },
    video: { path: file('idle.mp4'), what: 'idle clip', expected: 'mp4-picture', contentType: 'video/mp4' },
  };
}
