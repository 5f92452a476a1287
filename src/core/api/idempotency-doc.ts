import { z } from 'zod';

/** The `Idempotency-Key` request header as the OpenAPI document shows it on creations and uploads. */
export const IDEMPOTENCY_HEADER_DOC = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/)
    .optional()
    .meta({
      description:
        'Makes the request safe to retry: for 24 h, the same key with the same body (same API key) answers the first success again ' +
        '(one job, one upload; header `idempotent-replayed: true`), also when the requests race; another body answers 422 ' +
        '`idempotency_key_reused`; a duplicate of a request still in progress waits for it up to 10 s, then answers 409 `conflict`. ' +
        'Failed requests are not remembered.',
    }),
});

/** The response header of a replayed answer, as the OpenAPI document shows it on the 201 of those routes. */
export const IDEMPOTENT_REPLAYED_DOC = {
  'idempotent-replayed': '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
} as const;
