import { join } from 'node:path';
import type { SeparationEngine } from '../../../domain/engines.js';
import { TOKENS } from '../../tokens.js';
import type { KindOutputs, KindRunContext } from '../kind-spec.js';
import type { SeparationJob } from './record.js';

/** Separates the job's input into a speech and an ambience stem. */
export async function runSeparation(job: SeparationJob, context: KindRunContext): Promise<KindOutputs<SeparationJob>> {
  const separation = context.engine<SeparationEngine>(TOKENS.SeparationEngine, 'separation engine');
  const speechPath = join(context.workDir, 'speech');
  const ambiencePath = join(context.workDir, 'ambience');
  const output = await separation.separate(
    { audioPath: await context.localFile(job.input.audio, 'audio'), durationSec: job.input.durationSec, speechPath, ambiencePath },
    context,
  );
  return {
    speech: { path: speechPath, what: 'speech stem', expected: 'audio', contentType: output.contentType },
    ambience: { path: ambiencePath, what: 'ambience stem', expected: 'audio', contentType: output.contentType },
  };
}
