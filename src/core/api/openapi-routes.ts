import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import type { ApiDeps } from './deps.js';

/** GET /v1/openapi.json: the OpenAPI 3.1 document; no key needed. */
export function openapiRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/openapi.json',
      access: 'public',
      family: 'none',
      doc: {
        summary: 'This document (OpenAPI 3.1)',
        tag: 'Operations',
        responses: { 200: { description: 'The OpenAPI document', body: { contentType: 'application/json', schema: { type: 'object' } } } },
        errors: [],
      },
      async handle({ baseUrl }) {
        return json(200, { ...deps.openapi(), servers: [{ url: baseUrl }] });
      },
    },
  ];
}
