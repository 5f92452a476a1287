import { randomUUID } from 'node:crypto';
import type { Job, JobKind, JobStatus } from '../domain/job.js';
import type { AvatarVideoJob } from '../core/kinds/avatar-video/record.js';
import type { SeparationJob } from '../core/kinds/separation/record.js';

/**
 * Builds a valid job record for store tests: a `pending` avatar video job of `owner-a` by default (a separation job
 * with `kind: 'separation'`), with a fresh uid and input blob references that need not exist.
 */
export function makeJob(
  fields: { uid?: string; owner?: string; kind?: JobKind; status?: JobStatus; createdAt?: string } = {},
): Job {
  const createdAt = fields.createdAt ?? new Date().toISOString();
  const base = {
    uid: fields.uid ?? randomUUID(),
    owner: fields.owner ?? 'owner-a',
    status: fields.status ?? 'pending',
    createdAt,
    updatedAt: createdAt,
  };
  const audio = { id: 'audio-blob-1', contentType: 'audio/mpeg', size: 1234 };
  if ((fields.kind ?? 'avatarVideo') === 'avatarVideo') {
    const job: AvatarVideoJob = {
      ...base,
      kind: 'avatarVideo',
      input: { audioUrl: 'https://example.com/a.mp3', avatarId: randomUUID(), dangerousFlag: false, audio, durationSec: 12.5 },
    };
    return job;
  }
  const job: SeparationJob = {
    ...base,
    kind: 'separation',
    taskId: randomUUID(),
    input: { audioUri: 'https://example.com/a.wav', audio, durationSec: 3.25 },
  };
  return job;
}

/** An ISO timestamp `seconds` after a fixed origin, so tests control ordering exactly. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/** The uids of a list of jobs. */
export function uids(jobs: readonly Job[]): string[] {
  return jobs.map((job) => job.uid);
}
