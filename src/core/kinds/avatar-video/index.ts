import { defineKind } from '../kind-spec.js';
import { createAvatarVideo } from './create.js';
import type { AvatarVideoJob } from './record.js';
import { runAvatarVideo } from './run.js';
import { avatarVideoCreatedSchema, avatarVideoSchema, createAvatarVideoBodySchema, webhookAvatarVideoEventSchema } from './schemas.js';
import { avatarVideoCreated, avatarVideoView } from './views.js';

/** Lip-synced avatar videos: POST/GET /v2/2davatar, GET /v2/2davatar/:id and its cancel. */
export const avatarVideoKind = defineKind<AvatarVideoJob, typeof createAvatarVideoBodySchema>({
  kind: 'avatarVideo',
  api: {
    path: '/v2/2davatar',
    family: 'v2',
    idName: 'id',
    body: createAvatarVideoBodySchema,
    notFound: 'avatar video job',
    doc: {
      one: 'an avatar video job',
      many: 'avatar video jobs',
      tag: 'Avatar videos',
      created: avatarVideoCreatedSchema,
      listItem: avatarVideoSchema,
      single: avatarVideoSchema,
      createDescription: 'The audio is fetched and checked before the answer; the video is rendered in the background.',
    },
    create: createAvatarVideo,
    created: avatarVideoCreated,
    listItem: avatarVideoView,
    single: avatarVideoView,
    webhook: {
      type: 'avatarVideo',
      name: 'avatarVideoEnded',
      summary: 'An avatar video job reached `completed` or `error`',
      schema: webhookAvatarVideoEventSchema,
    },
  },
  run: runAvatarVideo,
  results: 'retention',
  resumesAfterStop: false,
});

export type { AvatarVideoJob, AvatarVideoInput, AvatarVideoResult } from './record.js';
