import { join } from 'node:path';
import type { LipSyncEngine } from '../../../domain/engines.js';
import { TOKENS } from '../../tokens.js';
import { JobFailedError } from '../../jobs/job-failure.js';
import type { KindOutputs, KindRunContext } from '../kind-spec.js';
import type { AvatarVideoJob } from './record.js';

/** Renders the avatar speaking the job's audio into an mp4. */
export async function runAvatarVideo(job: AvatarVideoJob, context: KindRunContext): Promise<KindOutputs<AvatarVideoJob>> {
  const lipSync = context.engine<LipSyncEngine>(TOKENS.LipSyncEngine, 'lip-sync engine');
  const subject = await context.services.avatars.lipSyncSubject(job.input.avatarId, job.owner, context.localFile);
  if (!subject) throw new JobFailedError({ code: 'avatar_missing', message: `avatar ${job.input.avatarId} no longer exists` });
  const outputPath = join(context.workDir, 'video.mp4');
  await lipSync.render(
    {
      audioPath: await context.localFile(job.input.audio, 'audio'),
      durationSec: job.input.durationSec,
      ...subject,
      backgroundPath: job.input.background ? await context.localFile(job.input.background, 'background') : undefined,
      outputPath,
      ...(job.input.dimension ? { outputSize: job.input.dimension } : {}),
    },
    context,
  );
  return { video: { path: outputPath, what: 'video', expected: 'mp4-video', contentType: 'video/mp4' } };
}
