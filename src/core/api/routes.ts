import type { Route } from '../http/router.js';
import type { ResolvedOptions } from '../options.js';
import type { ApiDeps } from './deps.js';
import { avatarRoutes } from './avatar-routes.js';
import { photoAvatarRoutes } from './photo-avatar-routes.js';
import { jobRoutes } from './job-routes.js';
import { uploadRoutes } from './upload-routes.js';
import { fileRoutes } from './file-routes.js';
import { openapiRoutes } from './openapi-routes.js';
import { operationsRoutes } from './operations-routes.js';

/** The one route table of the service, mounted by both adapters. */
export function buildRoutes(deps: ApiDeps): Route[] {
  return [
    ...avatarRoutes(deps),
    ...photoAvatarRoutes(deps),
    ...deps.kinds.all.flatMap((kind) => jobRoutes(deps, kind)),
    ...uploadRoutes(deps),
    ...fileRoutes(deps),
    ...openapiRoutes(deps),
    ...operationsRoutes(deps),
  ];
}

/** The routes an instance of this `role` mounts: a worker serves no API, only its health, readiness (and metrics). */
export function servedRoutes(role: ResolvedOptions['role'], deps: ApiDeps): Route[] {
  return role === 'worker' ? operationsRoutes(deps) : buildRoutes(deps);
}
