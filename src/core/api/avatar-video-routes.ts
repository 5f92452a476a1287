import type { Route } from '../http/router.js';
import { createAvatarVideoBodySchema } from '../schemas/avatar-video.js';
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
    create: (d, owner, body) => d.jobs.createAvatarVideo(owner, body),
    created: avatarVideoCreated,
    listItem: avatarVideoView,
    single: avatarVideoView,
  });
}
