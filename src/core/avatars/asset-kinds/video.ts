import { join } from 'node:path';
import type { VideoAvatarPreparer } from '../../../domain/engines.js';
import { VIDEO_AVATAR_ERROR_CODES, type VideoFace } from '../../../domain/avatar/video-face.js';
import type { VideoSource } from '../../../domain/avatar/video-avatar.js';
import { JobFailedError } from '../../jobs/job-failure.js';
import { TOKENS } from '../../tokens.js';
import type { AvatarAssetKind } from './asset-kind.js';


/**
 * Video avatars: a person's clip, prepared by the video avatar preparer (`TOKENS.VideoAvatarPreparer`,
 * docs/video-avatars.md). The prepared clip is the idle video; the face data and the mouth atlas are kept as two more
 * assets, which lip-sync needs: a video avatar animates once it is prepared. A clip the preparation refuses ends the
 * avatar in `error` with the refusal's code (`face_lost`, …) and message.
 */
export const videoAssets: AvatarAssetKind<VideoSource> = {
  asset: 'video',
  async render(source, context) {
    const preparer = context.engine<VideoAvatarPreparer>(TOKENS.VideoAvatarPreparer, 'video avatar preparer');
    // The avatar keeps its clip: its creation clears the upload's expiry, and this covers a creation whose write of it failed.
    await context.services.blobs.setExpiry(source.clip.id, undefined);
    const clipPath = await context.localFile(source.clip, 'clip');
    let prepared: Awaited<ReturnType<VideoAvatarPreparer['prepare']>>;
    try {
      const { minAvatarVideoSec, maxAvatarVideoSec } = context.services.options.limits;
      prepared = await preparer.prepare(clipPath, join(context.workDir, 'prepared'), {
        signal: context.signal,
        minSeconds: minAvatarVideoSec,
        maxSeconds: maxAvatarVideoSec,
        onProgress: (done, total) => context.onProgress({ done, total, unit: 'frames' }),
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (error instanceof Error && error.name === 'VideoAvatarError' && (VIDEO_AVATAR_ERROR_CODES as readonly unknown[]).includes(code)) {
        throw new JobFailedError({ code: code as string, message: error.message });
      }
      throw error;
    }
    return {
      thumbnail: { path: prepared.thumbnailPath, what: 'thumbnail', expected: 'png', contentType: 'image/png' },
      preview: { path: prepared.previewPath, what: 'preview', expected: 'png', contentType: 'image/png' },
      video: { path: prepared.face.clipPath, what: 'prepared clip', expected: 'mp4-picture', contentType: 'video/mp4' },
      face: { path: prepared.face.facePath, what: 'face data', expected: 'json', contentType: 'application/json' },
      atlas: { path: prepared.face.atlasPath, what: 'mouth atlas', expected: 'png', contentType: 'image/png' },
    };
  },
  async lipSync(source, localFile, assets) {
    if (!assets?.face || !assets.atlas) {
      throw new JobFailedError({ code: 'avatar_not_ready', message: 'the video avatar is not prepared yet: make videos with it once its thumbnailGenerationStatus is completed' });
    }
    // The three copies (downloads, from a store without local files) at once.
    const [clipPath, facePath, atlasPath] = await Promise.all([
      localFile(assets.video, 'prepared clip'),
      localFile(assets.face, 'face data'),
      localFile(assets.atlas, 'mouth atlas'),
    ]);
    const video: VideoFace = { fps: source.fps, clipPath, facePath, atlasPath };
    return { avatar: { id: `video-${source.clip.id.slice(0, 40).replace(/[^a-z0-9-]/g, '-')}`, name: 'video', width: source.width, height: source.height, fps: source.fps }, video };
  },
  ownedBlobs: (source) => [source.clip],
};
