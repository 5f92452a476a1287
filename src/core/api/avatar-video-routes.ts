import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { readJson } from '../http/read-json.js';
import { jobListQuerySchema } from '../schemas/common.js';
import { createAvatarVideoBodySchema } from '../schemas/avatar-video.js';
import { avatarVideoCreated, avatarVideoView } from '../views.js';
import { type ApiDeps, envelope } from './deps.js';

/** POST/GET /v2/2davatar and GET /v2/2davatar/:id. */
export function avatarVideoRoutes(deps: ApiDeps): Route[] {
  const query = jobListQuerySchema(deps.paging);
  return [
    {
      method: 'POST',
      pattern: '/v2/2davatar',
      access: 'key',
      family: 'v2',
      jsonBody: true,
      async handle({ request, owner }) {
        const body = validate(createAvatarVideoBodySchema, await readJson(request, deps.maxJsonBytes), 'body');
        const job = await deps.jobs.createAvatarVideo(owner, body);
        return json(201, [avatarVideoCreated(job)]);
      },
    },
    {
      method: 'GET',
      pattern: '/v2/2davatar',
      access: 'key',
      family: 'v2',
      async handle({ request, owner, baseUrl }) {
        const { page, perPage, status } = validate(query, Object.fromEntries(request.query), 'query');
        const { total, items } = await deps.jobs.list('avatarVideo', owner, page, perPage, status);
        const links = deps.links(baseUrl);
        return json(200, envelope(page, perPage, total, items.map((job) => avatarVideoView(job, links))));
      },
    },
    {
      method: 'GET',
      pattern: '/v2/2davatar/:id',
      access: 'key',
      family: 'v2',
      async handle({ params, owner, baseUrl }) {
        const job = await deps.jobs.get('avatarVideo', params.id!, owner);
        return json(200, avatarVideoView(job, deps.links(baseUrl)));
      },
    },
  ];
}
