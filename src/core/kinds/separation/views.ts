import type { LinkBuilder } from '../../links.js';
import { progressOf, reasonOf, stampsOf, usableResult } from '../job-views.js';
import type { SeparationJob } from './record.js';
import type { SeparationCreatedView, SeparationListItemView, SeparationView } from './schemas.js';

const EXTENSIONS: Record<string, string> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/mpeg': 'mp3', 'audio/flac': 'flac' };

export function separationCreated(job: SeparationJob): SeparationCreatedView {
  return { uid: job.uid, audioUri: job.input.audioUri, status: job.status, createdAt: job.createdAt, updatedAt: job.updatedAt };
}

async function stemPaths(job: SeparationJob, links: LinkBuilder) {
  const result = usableResult(job);
  const ext = (blob: { contentType: string } | undefined) => EXTENSIONS[blob?.contentType ?? ''] ?? 'bin';
  const [speech, ambience] = await Promise.all([
    links.link(result?.speech, `${job.uid}-speech.${ext(result?.speech)}`),
    links.link(result?.ambience, `${job.uid}-ambience.${ext(result?.ambience)}`),
  ]);
  return { speech, ambience };
}

export async function separationListItem(job: SeparationJob, links: LinkBuilder): Promise<SeparationListItemView> {
  return { ...stampsOf(job), path: await stemPaths(job, links), ...progressOf(job), ...reasonOf(job) };
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
    ...reasonOf(job),
  };
}
