import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { readJson } from '../http/read-json.js';
import { jobListQuerySchema } from '../schemas/common.js';
import { createSeparationBodySchema } from '../schemas/separation.js';
import { separationCreated, separationListItem, separationView } from '../views.js';
import { type ApiDeps, envelope } from './deps.js';

/** POST/GET /v1/sourceSeparations and GET /v1/sourceSeparations/:id. */
export function separationRoutes(deps: ApiDeps): Route[] {
  const query = jobListQuerySchema(deps.paging);
  return [
    {
      method: 'POST',
      pattern: '/v1/sourceSeparations',
      access: 'key',
      family: 'v1',
      jsonBody: true,
      async handle({ request, owner }) {
        const body = validate(createSeparationBodySchema, await readJson(request, deps.maxJsonBytes), 'body');
        const job = await deps.jobs.createSeparation(owner, body);
        return json(201, [separationCreated(job)]);
      },
    },
    {
      method: 'GET',
      pattern: '/v1/sourceSeparations',
      access: 'key',
      family: 'v1',
      async handle({ request, owner, baseUrl }) {
        const { page, perPage, status } = validate(query, Object.fromEntries(request.query), 'query');
        const { total, items } = await deps.jobs.list('separation', owner, page, perPage, status);
        const links = deps.links(baseUrl);
        return json(200, envelope(page, perPage, total, items.map((job) => separationListItem(job, links))));
      },
    },
    {
      method: 'GET',
      pattern: '/v1/sourceSeparations/:id',
      access: 'key',
      family: 'v1',
      async handle({ params, owner, baseUrl }) {
        const job = await deps.jobs.get('separation', params.id!, owner);
        return json(200, separationView(job, deps.links(baseUrl)));
      },
    },
  ];
}
