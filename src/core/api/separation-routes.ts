import type { Route } from '../http/router.js';
import {
  createSeparationBodySchema,
  separationCreatedSchema,
  separationListItemSchema,
  separationSchema,
} from '../schemas/separation.js';
import { separationCreated, separationListItem, separationView } from '../views.js';
import type { ApiDeps } from './deps.js';
import { jobRoutes } from './job-routes.js';

/** POST/GET /v1/sourceSeparations and GET /v1/sourceSeparations/:source_separation_id. */
export function separationRoutes(deps: ApiDeps): Route[] {
  return jobRoutes(deps, {
    kind: 'separation',
    path: '/v1/sourceSeparations',
    family: 'v1',
    body: createSeparationBodySchema,
    idName: 'source_separation_id',
    doc: {
      one: 'a source separation job',
      many: 'source separation jobs',
      tag: 'Source separation (beta)',
      created: separationCreatedSchema,
      listItem: separationListItemSchema,
      single: separationSchema,
      createDescription: 'The input is fetched and checked before the answer; the stems are made in the background.',
    },
    create: (d, owner, body, context) => d.jobs.createSeparation(owner, body, context),
    created: separationCreated,
    listItem: separationListItem,
    single: separationView,
  });
}
