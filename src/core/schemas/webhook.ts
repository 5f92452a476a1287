import { z } from 'zod';
import { avatarVideoSchema } from './avatar-video.js';
import { separationSchema } from './separation.js';

/** Webhook event of an avatar video job: `data` is the job as GET /v2/2davatar/{id} answers it. */
export const webhookAvatarVideoEventSchema = z
  .object({ type: z.enum(['avatarVideo.completed', 'avatarVideo.error']), data: avatarVideoSchema })
  .meta({ id: 'AvatarVideoWebhookEvent' });

/** Webhook event of a source separation: `data` is the job as GET /v1/sourceSeparations/{id} answers it. */
export const webhookSeparationEventSchema = z
  .object({ type: z.enum(['sourceSeparation.completed', 'sourceSeparation.error']), data: separationSchema })
  .meta({ id: 'SourceSeparationWebhookEvent' });
