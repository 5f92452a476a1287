import { z } from 'zod';
import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { readJson } from '../http/read-json.js';
import { envelopeSchema, jobListQuerySchema } from '../schemas/common.js';
import type { Job, JobKind } from '../job.js';
import type { LinkBuilder } from '../links.js';
import { type ApiDeps, envelope } from './deps.js';

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
  create(deps: ApiDeps, owner: string, body: z.output<B>): Promise<Extract<Job, { kind: K }>>;
  created(job: Extract<Job, { kind: K }>): unknown;
  /** The list item view; async because links may be presigned by the blob store. */
  listItem(job: Extract<Job, { kind: K }>, links: LinkBuilder): Promise<unknown>;
  single(job: Extract<Job, { kind: K }>, links: LinkBuilder): Promise<unknown>;
}

/** POST and GET on the collection, GET on one item: the same three routes for every job resource. */
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
        body: { contentType: 'application/json', schema: resource.body },
        responses: { 201: { description: 'Created: a one-item array', body: { contentType: 'application/json', schema: z.array(doc.created) } } },
        errors: [400, 413],
      },
      async handle({ request, owner }) {
        const body = validate(resource.body, await readJson(request, deps.maxJsonBytes), 'body');
        return json(201, [resource.created(await resource.create(deps, owner, body))]);
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
  ];
}
