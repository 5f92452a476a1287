import type { Job } from '../../domain/job.js';
import type { LinkBuilder } from '../links.js';
import { avatarVideoView, separationView } from '../views.js';
import type { z } from 'zod';
import type { webhookAvatarVideoEventSchema, webhookSeparationEventSchema } from '../schemas/webhook.js';

/** The body POSTed to a job's `webhookUrl` when it reaches a final state (documented in the OpenAPI `webhooks`). */
export type WebhookEvent = z.output<typeof webhookAvatarVideoEventSchema> | z.output<typeof webhookSeparationEventSchema>;

/** The event announcing a final job: `data` is the job exactly as its GET answers it (links signed afresh). */
export async function webhookEvent(job: Job, links: LinkBuilder): Promise<WebhookEvent> {
  const status = job.status === 'completed' ? 'completed' : 'error';
  if (job.kind === 'avatarVideo') return { type: `avatarVideo.${status}`, data: await avatarVideoView(job, links) };
  if (job.kind === 'separation') return { type: `sourceSeparation.${status}`, data: await separationView(job, links) };
  // Nothing gives an avatarPrepare job a `webhook`, so the store never queues a delivery for one.
  throw new Error(`a ${job.kind} job announces no webhook`);
}

/** The `webhook-id` of a job's delivery: the same on every attempt (a job announces one final state). */
export function webhookId(uid: string): string {
  return `msg_${uid}`;
}
