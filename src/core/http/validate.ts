import type { z } from 'zod';
import { ApiError, type FieldIssue } from '../errors.js';

/** Parses `value` with `schema`; on failure throws a 400 listing every field problem under `where` (`body`, `query`). */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' | 'path'): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = [where, ...issue.path.map(String)].join('.');
    return keys.length > 0
      ? { field: `${path}.${keys.join(',')}`, message: `unknown field${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}` }
      : { field: path, message: issue.message };
  });
  throw ApiError.badRequest('validation_failed', `invalid request ${where}`, details);
}
