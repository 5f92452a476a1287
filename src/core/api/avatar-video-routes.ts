import type { Route } from '../http/router.js';
import { avatarVideoCreatedSchema, avatarVideoSchema, createAvatarVideoBodySchema } from '../schemas/avatar-video.js';
import { avatarVideoCreated, avatarVideoView } from '../views.js';
import type { ApiDeps } from './deps.js';
import { jobRoutes } from './job-routes.js';

/** POST/GET /v2/2davatar and GET /v2/2davatar/:id. */
export function avatarVideoRoutes(deps: ApiDeps): Route[] {
  return jobRoutes(deps, {
    kind: 'avatarVideo',
    path: '/v2/2davatar',
    family: 'v2',
    body: createAvatarVideoBodySchema,
    idName: 'id',
    doc: {
      one: 'an avatar video job',
      many: 'avatar video jobs',
      tag: 'Avatar videos',
      created: avatarVideoCreatedSchema,
      listItem: avatarVideoSchema,
      single: avatarVideoSchema,
      createDescription: 'The audio is fetched and checked before the answer; the video is rendered in the background.',
    },
    create: (d, owner, body, context) => d.jobs.createAvatarVideo(owner, body, context),
    created: avatarVideoCreated,
    listItem: avatarVideoView,
    single: avatarVideoView,
  });
}
