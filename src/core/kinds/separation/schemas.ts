import { z } from 'zod';
import { errorReasonSchema, progressSchema, httpUrlField, jobStatusSchema, timestampSchema, uuidSchema } from '../../schemas/common.js';

/** Body of POST /v1/sourceSeparations. */
export const createSeparationBodySchema = z
  .object({
    audioUri: httpUrlField('audioUri').meta({ description: 'mp3, wav, mp4 or mov; reachable by the service, or a URL from POST /v1/uploads' }),
    webhookUrl: httpUrlField('webhookUrl').optional().meta({ description: 'Where to POST a signed event (Standard Webhooks) when the job reaches `completed` or `error`' }),
  })
  .strict()
  .meta({ id: 'CreateSourceSeparation' });

export type CreateSeparationBody = z.infer<typeof createSeparationBodySchema>;

const stemPaths = z
  .object({
    speech: z.string().meta({ description: 'Signed link to the speech stem; empty string until completed' }),
    ambience: z.string().meta({ description: 'Signed link to the ambience stem; empty string until completed' }),
  })
  .meta({ id: 'SeparationPaths' });

const base = { uid: uuidSchema, status: jobStatusSchema, createdAt: timestampSchema, updatedAt: timestampSchema };

/** Creation response item. */
export const separationCreatedSchema = z.object({ ...base, audioUri: z.string() }).meta({ id: 'SourceSeparationCreated' });

/** List item: no `audioUri`, no `taskId`. */
export const separationListItemSchema = z
  .object({ ...base, path: stemPaths, progress: progressSchema.optional(), errorReason: errorReasonSchema.optional() })
  .meta({ id: 'SourceSeparationListItem' });

/** Single fetch: adds `audioUri` and `taskId`. */
export const separationSchema = z
  .object({ ...base, audioUri: z.string(), path: stemPaths, taskId: uuidSchema, progress: progressSchema.optional(), errorReason: errorReasonSchema.optional() })
  .meta({ id: 'SourceSeparation' });

export type SeparationCreatedView = z.infer<typeof separationCreatedSchema>;
export type SeparationListItemView = z.infer<typeof separationListItemSchema>;
export type SeparationView = z.infer<typeof separationSchema>;

/** Webhook event of a source separation: `data` is the job as GET /v1/sourceSeparations/{id} answers it. */
export const webhookSeparationEventSchema = z
  .object({ type: z.enum(['sourceSeparation.completed', 'sourceSeparation.error']), data: separationSchema })
  .meta({ id: 'SourceSeparationWebhookEvent' });
