import { z } from 'zod';
import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { readJson } from '../http/read-json.js';
import { envelopeSchema, jobListQuerySchema } from '../schemas/common.js';
import { type ApiDeps, envelope } from './deps.js';
import type { KindSpec } from '../kinds/kind-spec.js';
import { canonicalJson } from '../idempotency/canonical-json.js';
import { idempotencyKeyOf, requestFingerprint } from '../idempotency/idempotency.js';
import { IDEMPOTENCY_HEADER_DOC, IDEMPOTENT_REPLAYED_DOC } from './idempotency-doc.js';

/** POST and GET on the collection, GET and cancel on one item: the same four routes for every kind with an API resource. */
export function jobRoutes(deps: ApiDeps, spec: KindSpec): Route[] {
  const resource = spec.api;
  if (!resource) return [];
  const query = jobListQuerySchema(deps.paging);
  const { kind } = spec;
  const { path, family, doc } = resource;
  const id = resource.idName;
  return [
    {
      method: 'POST',
      pattern: path,
      access: 'key',
      family,
      jsonBody: true,
      doc: {
        summary: `Create ${doc.one}`,
        description: doc.createDescription,
        tag: doc.tag,
        headers: IDEMPOTENCY_HEADER_DOC,
        body: { contentType: 'application/json', schema: resource.body },
        responses: {
          201: {
            description: 'Created: a one-item array (with `Idempotency-Key`: the first answer again for a repeat)',
            body: { contentType: 'application/json', schema: z.array(doc.created) },
            headers: IDEMPOTENT_REPLAYED_DOC,
          },
        },
        errors: [400, 409, 413, 422],
      },
      async handle({ request, owner, baseUrl }) {
        const key = idempotencyKeyOf(request.headers);
        const raw = await readJson(request, deps.maxJsonBytes);
        return deps.idempotency.run(key, owner, requestFingerprint(`POST ${path}`, canonicalJson(raw)), async () => {
          const body = validate(resource.body, raw, 'body');
          return json(201, [resource.created(await deps.jobs.create(kind, owner, body, { baseUrl, signal: request.signal }))]);
        });
      },
    },
    {
      method: 'GET',
      pattern: path,
      access: 'key',
      family,
      doc: {
        summary: `List ${doc.many} of this key, newest first`,
        tag: doc.tag,
        query,
        responses: { 200: { description: 'One page', body: { contentType: 'application/json', schema: envelopeSchema(doc.listItem) } } },
        errors: [400],
      },
      async handle({ request, owner, baseUrl }) {
        const { page, perPage, status } = validate(query, Object.fromEntries(request.query), 'query');
        const { total, items } = await deps.jobs.list(kind, owner, page, perPage, status);
        const links = deps.links(baseUrl);
        return json(200, envelope(page, perPage, total, await Promise.all(items.map((job) => resource.listItem(job, links)))));
      },
    },
    {
      method: 'GET',
      pattern: `${path}/:${id}`,
      access: 'key',
      family,
      doc: {
        summary: `Get ${doc.one}`,
        tag: doc.tag,
        params: z.object({ [id]: z.string().meta({ description: 'The job `uid`' }) }),
        responses: { 200: { description: 'The job', body: { contentType: 'application/json', schema: doc.single } } },
        errors: [404],
      },
      async handle({ params, owner, baseUrl }) {
        return json(200, await resource.single(await deps.jobs.get(kind, params[id]!, owner), deps.links(baseUrl)));
      },
    },
    {
      method: 'POST',
      pattern: `${path}/:${id}/cancel`,
      access: 'key',
      family,
      doc: {
        summary: `Cancel ${doc.one}`,
        description:
          'A `pending` or `ongoing` job ends in `error` with `errorReason.code = "canceled"` (within about 2 s when it runs in another process) and its engine stops.',
        tag: doc.tag,
        params: z.object({ [id]: z.string().meta({ description: 'The job `uid`' }) }),
        responses: { 200: { description: 'The job, as GET answers it', body: { contentType: 'application/json', schema: doc.single } } },
        errors: [404, 409],
      },
      async handle({ params, owner, baseUrl }) {
        return json(200, await resource.single(await deps.jobs.cancel(kind, params[id]!, owner), deps.links(baseUrl)));
      },
    },
  ];
}
