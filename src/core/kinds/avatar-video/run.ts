import { join } from 'node:path';
import type { LipSyncEngine } from '../../../domain/engines.js';
import { TOKENS } from '../../tokens.js';
import { JobFailedError } from '../../jobs/job-failure.js';
import type { KindOutputs, KindRunContext } from '../kind-spec.js';
import type { AvatarVideoJob } from './record.js';

/** Renders the avatar speaking the job's audio into an mp4. */
export async function runAvatarVideo(job: AvatarVideoJob, context: KindRunContext): Promise<KindOutputs<AvatarVideoJob>> {
  const lipSync = context.engine<LipSyncEngine>(TOKENS.LipSyncEngine, 'lip-sync engine');
  // The inputs' local copies (each a download from a store without local files) are made while the avatar's are.
  const { audio, background } = job.input;
  const inputs = Promise.all([context.localFile(audio, 'audio'), background ? context.localFile(background, 'background') : undefined]);
  // A missing avatar is the job's failure, whatever became of the inputs' copies.
  inputs.catch(() => undefined);
  const subject = await context.services.avatars.lipSyncSubject(job.input.avatarId, job.owner, context.localFile);
  if (!subject) throw new JobFailedError({ code: 'avatar_missing', message: `avatar ${job.input.avatarId} no longer exists` });
  const [audioPath, backgroundPath] = await inputs;
  const outputPath = join(context.workDir, 'video.mp4');
  await lipSync.render(
    {
      audioPath,
      durationSec: job.input.durationSec,
      ...subject,
      backgroundPath,
      outputPath,
      ...(job.input.dimension ? { outputSize: job.input.dimension } : {}),
    },
    context,
  );
  return { video: { path: outputPath, what: 'video', expected: 'mp4-video', contentType: 'video/mp4' } };
}
