import type { z } from 'zod';
import type { Job } from '../../domain/job.js';
import type { LinkBuilder } from '../links.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { webhookAvatarVideoEventSchema } from '../kinds/avatar-video/schemas.js';
import type { webhookSeparationEventSchema } from '../kinds/separation/schemas.js';

/**
 * The body POSTed to a job's `webhookUrl` when it reaches a final state (documented in the OpenAPI `webhooks`): the
 * built-in kinds' events. A kind of the `jobKinds` option sends `{ type: '<its type>.completed' | '<its type>.error', data }` alike.
 */
export type WebhookEvent = z.output<typeof webhookAvatarVideoEventSchema> | z.output<typeof webhookSeparationEventSchema>;

/**
 * The event announcing a final job: `data` is the job exactly as its GET answers it (links signed afresh), `type`
 * the kind's event type. `undefined` for a job whose kind sends no webhook (or that this instance does not know):
 * the delivery has nothing to send.
 */
export async function webhookEvent(job: Job, links: LinkBuilder, kinds: KindRegistry): Promise<{ type: string; data: unknown } | undefined> {
  const api = kinds.find(job.kind)?.api;
  if (!api?.webhook) return undefined;
  const status = job.status === 'completed' ? 'completed' : 'error';
  return { type: `${api.webhook.type}.${status}`, data: await api.single(job, links) };
}

/** The `webhook-id` of a job's delivery: the same on every attempt (a job announces one final state). */
export function webhookId(uid: string): string {
  return `msg_${uid}`;
}
