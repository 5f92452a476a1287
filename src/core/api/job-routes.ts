import { z } from 'zod';
import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { readJson } from '../http/read-json.js';
import { envelopeSchema, jobListQuerySchema } from '../schemas/common.js';
import type { Job, JobKind } from '../../domain/job.js';
import type { LinkBuilder } from '../links.js';
import { type ApiDeps, envelope } from './deps.js';
import type { CreationContext } from '../jobs/job-service.js';
import { canonicalJson } from '../idempotency/canonical-json.js';
import { idempotencyKeyOf, requestFingerprint } from '../idempotency/idempotency.js';
import { IDEMPOTENCY_HEADER_DOC, IDEMPOTENT_REPLAYED_DOC } from './idempotency-doc.js';

/** How one job resource maps onto the shared create / list / get routes. */
export interface JobResource<K extends JobKind, B extends z.ZodType> {
  kind: K;
  /** Collection path, e.g. `/v2/2davatar`. */
  path: string;
  family: 'v1' | 'v2';
  body: B;
  /** Name of the id in the item path (the spec's: `id`, `source_separation_id`). */
  idName: string;
  /** Documentation: the resource's name and tag, and the schemas of its three response shapes. */
  doc: { one: string; many: string; tag: string; created: z.ZodType; listItem: z.ZodType; single: z.ZodType; createDescription?: string };
  create(deps: ApiDeps, owner: string, body: z.output<B>, context: CreationContext): Promise<Extract<Job, { kind: K }>>;
  created(job: Extract<Job, { kind: K }>): unknown;
  /** The list item view; async because links may be presigned by the blob store. */
  listItem(job: Extract<Job, { kind: K }>, links: LinkBuilder): Promise<unknown>;
  single(job: Extract<Job, { kind: K }>, links: LinkBuilder): Promise<unknown>;
}

/** POST and GET on the collection, GET and cancel on one item: the same four routes for every job resource. */
export function jobRoutes<K extends JobKind, B extends z.ZodType>(deps: ApiDeps, resource: JobResource<K, B>): Route[] {
  const query = jobListQuerySchema(deps.paging);
  const { kind, path, family, doc } = resource;
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
          return json(201, [resource.created(await resource.create(deps, owner, body, { baseUrl }))]);
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
