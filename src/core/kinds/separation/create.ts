import { randomUUID } from 'node:crypto';
import type { KindCreation, KindFields } from '../kind-spec.js';
import type { SeparationJob } from './record.js';
import type { CreateSeparationBody } from './schemas.js';

/** Containers accepted for separation (SPEC §4.6), decided by probing, not by file name. */
export const SEPARATION_CONTAINERS = ['mp3', 'wav', 'mp4', 'mov'];

/** The fields of a new separation job: its input is fetched and checked (container, decoded duration). */
export async function createSeparation(body: CreateSeparationBody, creation: KindCreation): Promise<KindFields<SeparationJob>> {
  const audio = await creation.input({
    url: body.audioUri,
    kind: 'audio',
    field: 'audioUri',
    allowedContainers: SEPARATION_CONTAINERS,
    maxDurationSec: creation.services.options.limits.maxSeparationSec,
    maxDurationOption: 'limits.maxSeparationSec',
  });
  return { taskId: randomUUID(), input: { audioUri: body.audioUri, audio: audio.blob, durationSec: audio.durationSec } };
}
