import type { Route } from '../http/router.js';
import { createSeparationBodySchema } from '../schemas/separation.js';
import { separationCreated, separationListItem, separationView } from '../views.js';
import type { ApiDeps } from './deps.js';
import { jobRoutes } from './job-routes.js';

/** POST/GET /v1/sourceSeparations and GET /v1/sourceSeparations/:id. */
export function separationRoutes(deps: ApiDeps): Route[] {
  return jobRoutes(deps, {
    kind: 'separation',
    path: '/v1/sourceSeparations',
    family: 'v1',
    body: createSeparationBodySchema,
    create: (d, owner, body) => d.jobs.createSeparation(owner, body),
    created: separationCreated,
    listItem: separationListItem,
    single: separationView,
  });
}
