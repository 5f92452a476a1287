import type { LinkBuilder } from '../../links.js';
import { progressOf, reasonOf, stampsOf, usableResult } from '../job-views.js';
import type { AvatarVideoJob } from './record.js';
import type { AvatarVideoCreatedView, AvatarVideoView } from './schemas.js';

export function avatarVideoCreated(job: AvatarVideoJob): AvatarVideoCreatedView {
  return stampsOf(job);
}

export async function avatarVideoView(job: AvatarVideoJob, links: LinkBuilder): Promise<AvatarVideoView> {
  const result = usableResult(job);
  return { ...stampsOf(job), path: await links.link(result?.video, `${job.uid}.mp4`), ...progressOf(job), ...reasonOf(job) };
}
