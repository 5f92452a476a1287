/**
 * Where the checks of the keys' input files wait for the host's media command children (see `runMedia`): an audio
 * input's probe and the decode that measures it, an image's probe, a video avatar's clip checks. Two children serve
 * every key; first come, first served, one key's burst of long files (a decode may take up to a minute) made every
 * other key's request wait behind all of it, and the decode's deadline counted the wait. Here keys take turns, so a
 * burst delays another key by at most one check per child, and each deadline counts only its own work (it starts
 * inside the task). A key with `maxWaitingPerKey` checks waiting gets 429 `too_many_requests` for one more.
 */
import { MEDIA_COMMAND_WORKERS } from '../../inference/media/run-media.js';
import { FairQueue, QueueFullError } from '../../queue/fair-queue.js';
import { ApiError } from '../errors.js';

/** The queue of input checks: as many at once as there are media command children; keys in turn. */
export function mediaCheckQueue(maxWaitingPerKey: number): FairQueue {
  return new FairQueue({ concurrency: MEDIA_COMMAND_WORKERS, maxWaitingPerKey, typicalTaskMs: 1_000 });
}

/** A refusal of the check queue as the API's 429 (with `Retry-After`); any other error as it is. */
export function checksFull(error: unknown): unknown {
  if (!(error instanceof QueueFullError)) return error;
  return new ApiError(429, 'too_many_requests', `${error.message} for their files to be checked; retry later`, undefined, { 'retry-after': String(error.retryAfterSec) });
}
