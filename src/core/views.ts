import type { AvatarVideoJob, Job, SeparationJob } from '../domain/job.js';
import type { LinkBuilder } from './links.js';
import type { AvatarVideoCreatedView, AvatarVideoView } from './schemas/avatar-video.js';
import type { SeparationCreatedView, SeparationListItemView, SeparationView } from './schemas/separation.js';

/**
 * Projections of job records onto the spec's response shapes. Each function returns exactly the fields
 * the spec lists for that response, plus the documented extensions: `progress` while ongoing, `errorReason` on failed jobs.
 */

/** `progress` from 0 to 1 while `ongoing` (0 until the engine first reports); absent in every other state. */
export function progressOf(job: Job): { progress?: number } {
  if (job.status !== 'ongoing') return {};
  const { done = 0, total = 0 } = job.progress ?? {};
  const fraction = total > 0 && Number.isFinite(done / total) ? done / total : 0;
  return { progress: Math.min(1, Math.max(0, fraction)) };
}

const reason = (job: Job) => (job.status === 'error' && job.failure ? { errorReason: { ...job.failure } } : {});
const stamps = (job: Job) => ({ uid: job.uid, status: job.status, createdAt: job.createdAt, updatedAt: job.updatedAt });
const usable = <T>(job: Job, result: T | undefined): T | undefined => (job.status === 'completed' ? result : undefined);
const EXTENSIONS: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/flac': 'flac' };

export function avatarVideoCreated(job: AvatarVideoJob): AvatarVideoCreatedView {
  return stamps(job);
}

export async function avatarVideoView(job: AvatarVideoJob, links: LinkBuilder): Promise<AvatarVideoView> {
  const result = usable(job, job.result);
  return { ...stamps(job), path: await links.link(result?.video, `${job.uid}.mp4`), ...progressOf(job), ...reason(job) };
}

export function separationCreated(job: SeparationJob): SeparationCreatedView {
  return { uid: job.uid, audioUri: job.input.audioUri, status: job.status, createdAt: job.createdAt, updatedAt: job.updatedAt };
}

async function stemPaths(job: SeparationJob, links: LinkBuilder) {
  const result = usable(job, job.result);
  const ext = (blob: { contentType: string } | undefined) => EXTENSIONS[blob?.contentType ?? ''] ?? 'bin';
  const [speech, ambience] = await Promise.all([
    links.link(result?.speech, `${job.uid}-speech.${ext(result?.speech)}`),
    links.link(result?.ambience, `${job.uid}-ambience.${ext(result?.ambience)}`),
  ]);
  return { speech, ambience };
}

export async function separationListItem(job: SeparationJob, links: LinkBuilder): Promise<SeparationListItemView> {
  return { ...stamps(job), path: await stemPaths(job, links), ...progressOf(job), ...reason(job) };
}

export async function separationView(job: SeparationJob, links: LinkBuilder): Promise<SeparationView> {
  return {
    uid: job.uid,
    audioUri: job.input.audioUri,
    path: await stemPaths(job, links),
    taskId: job.taskId,
    status: job.status,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    ...progressOf(job),
    ...reason(job),
  };
}
