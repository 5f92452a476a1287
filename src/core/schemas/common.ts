import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/job.js';
import { acceptedAtMost } from '../input/limit-text.js';

/** ISO 8601 UTC timestamp with milliseconds, e.g. `2026-01-01T00:00:00.000Z`. */
export const timestampSchema = z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601 UTC timestamp with milliseconds' });

export const uuidSchema = z.uuid();

/** Error text for a field: "X is required" when absent, else the given text. */
export const fieldError = (name: string, otherwise: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? `${name} is required` : otherwise),
});

/** An http(s) URL field with clear messages. */
export const httpUrlField = (name: string) => z.url({ protocol: /^https?$/, ...fieldError(name, `${name} must be an http(s) URL`) });

export const jobStatusSchema = z.enum(JOB_STATUSES).meta({ description: 'Job state; polling stops at `completed` or `error`.' });

/** Why a job failed; an extension field present only when `status` is `error`. */
export const errorReasonSchema = z
  .object({ code: z.string(), message: z.string() })
  .meta({ description: 'Extension: why the job ended in `error`. Present only when status is `error`.' });

/**
 * How far an `ongoing` job has come, from 0 to 1; an extension field present only while `status` is `ongoing`
 * (0 until the engine first reports).
 */
export const progressSchema = z
  .number()
  .min(0)
  .max(1)
  .meta({ description: 'Extension: how far the job has come, from 0 to 1. Present only while status is `ongoing`.' });

/** Paging limits, taken from the options. */
export interface PagingLimits {
  defaultPerPage: number;
  maxPerPage: number;
}

/**
 * A whole number in the URL: digits become a number before validation, so the document shows an integer. Over `max`,
 * the message gives the number sent and names `option`, the option that sets `max`, when there is one.
 */
const positiveInt = (name: string, max: number, option?: string) =>
  z.preprocess(
    (value) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value),
    z
      .number({ error: `${name} must be a positive whole number` })
      .int(`${name} must be a positive whole number`)
      .min(1, `${name} must be at least 1`)
      .max(max, { error: (issue) => `${name} is ${String(issue.input)}; ${acceptedAtMost(String(max), option)}` }),
  );

/** Query of the avatar list: `page` and `perPage` (strings in the URL, whole numbers after parsing). */
export function pagingQuerySchema(limits: PagingLimits) {
  return z
    .object({
      page: positiveInt('page', 1_000_000).default(1),
      perPage: positiveInt('perPage', limits.maxPerPage, 'limits.maxPerPage').default(limits.defaultPerPage),
    })
    .strict();
}

/** Query of the job lists: paging plus an optional `status` filter. */
export function jobListQuerySchema(limits: PagingLimits) {
  return pagingQuerySchema(limits).extend({ status: jobStatusSchema.optional() }).strict();
}

/** The paginated envelope of every list endpoint (SPEC §2.5). */
export function envelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    page: z.number().int(),
    perPage: z.number().int(),
    total: z.number().int(),
    nextPage: z.number().int().nullable(),
    data: z.array(item),
  });
}

/** Error body schema, for the OpenAPI document. */
export const errorBodySchema = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'Error' });
