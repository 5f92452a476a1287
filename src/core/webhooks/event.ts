import type { Job } from '../job.js';
import type { LinkBuilder } from '../links.js';
import { avatarVideoView, separationView } from '../views.js';
import type { AvatarVideoView } from '../schemas/avatar-video.js';
import type { SeparationView } from '../schemas/separation.js';

/** The body POSTed to a job's `webhookUrl` when it reaches a final state. */
export type WebhookEvent =
  | { type: 'avatarVideo.completed' | 'avatarVideo.error'; data: AvatarVideoView }
  | { type: 'sourceSeparation.completed' | 'sourceSeparation.error'; data: SeparationView };

/** The event announcing a final job: `data` is the job exactly as its GET answers it (links signed afresh). */
export function webhookEvent(job: Job, links: LinkBuilder): WebhookEvent {
  const status = job.status === 'completed' ? 'completed' : 'error';
  if (job.kind === 'avatarVideo') return { type: `avatarVideo.${status}`, data: avatarVideoView(job, links) };
  return { type: `sourceSeparation.${status}`, data: separationView(job, links) };
}

/** The `webhook-id` of a job's delivery: the same on every attempt (a job announces one final state). */
export function webhookId(uid: string): string {
  return `msg_${uid}`;
}
