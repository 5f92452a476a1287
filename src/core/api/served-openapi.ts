import type { ResolvedOptions, VirtualAnchorOptions } from '../options.js';
import { resolveOptions } from '../resolve-options.js';
import { optionDeps, type ApiDeps } from './deps.js';
import { buildOpenApi } from './openapi.js';
import { servedRoutes } from './routes.js';

/**
 * The OpenAPI document an instance with these options serves at GET /v1/openapi.json, less the `servers` it
 * adds per request, built without starting anything: the route table is built as `createVirtualAnchor` builds
 * it, over the dependencies the options give. The services are not there; a route that read one while the
 * table is built would throw here, as it would in an instance, which builds its table before it starts.
 */
export function servedOpenApi(options: VirtualAnchorOptions): Record<string, unknown> {
  const { resolved } = resolveOptions(options);
  return buildOpenApi(servedRoutes(resolved.role, optionsOnlyDeps(resolved)), resolved.kinds);
}

/**
 * The dependencies the options give, for building a route table without starting anything (the OpenAPI document,
 * start-up checks of the table); reading any other throws.
 */
export function optionsOnlyDeps(resolved: ResolvedOptions): ApiDeps {
  const known = optionDeps(resolved, () => Promise.reject(new Error('a route table built from options serves no metrics')));
  return new Proxy(known, {
    get(target, name) {
      if (name in target) return target[name as keyof typeof target];
      throw new Error(`the route table read deps.${String(name)} while it was built, before the services start`);
    },
  }) as ApiDeps;
}
