import { ApiError } from '../../errors.js';
import type { KindCreation, KindFields } from '../kind-spec.js';
import type { AvatarVideoJob } from './record.js';
import type { CreateAvatarVideoBody } from './schemas.js';

/** The input of a new avatar video job: the avatar must be usable by the key, the audio and background are fetched and checked. */
export async function createAvatarVideo(body: CreateAvatarVideoBody, creation: KindCreation): Promise<KindFields<AvatarVideoJob>> {
  const { owner, services } = creation;
  if (!(await services.avatars.usable(body.avatarId, owner))) {
    throw ApiError.badRequest('unknown_avatar', `no avatar with uid ${body.avatarId}`, [
      { field: 'body.avatarId', message: 'no avatar with this uid; list them with GET /v2/avatar' },
    ]);
  }
  const audio = await creation.input({
    url: body.audioUrl,
    kind: 'audio',
    field: 'audioUrl',
    maxDurationSec: services.options.limits.maxAvatarAudioSec,
    maxDurationOption: 'limits.maxAvatarAudioSec',
  });
  const background = body.backgroundUrl ? await creation.input({ url: body.backgroundUrl, kind: 'image', field: 'backgroundUrl' }) : undefined;
  return {
    input: {
      audioUrl: body.audioUrl,
      avatarId: body.avatarId,
      ...(body.backgroundUrl ? { backgroundUrl: body.backgroundUrl } : {}),
      dangerousFlag: body.dangerousFlag === true,
      audio: audio.blob,
      ...(background ? { background: background.blob } : {}),
      durationSec: audio.durationSec,
      ...(body.dimension ? { dimension: { width: body.dimension.width, height: body.dimension.height } } : {}),
    },
  };
}
