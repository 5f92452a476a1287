import { assetKindOf } from '../../avatars/asset-kinds/registry.js';
import type { KindOutputs, KindRunContext } from '../kind-spec.js';
import type { AvatarPrepareJob } from './record.js';

/** Makes the avatar's thumbnail, preview and idle clip the way its asset kind does. */
export function runAvatarPrepare(job: AvatarPrepareJob, context: KindRunContext): Promise<KindOutputs<AvatarPrepareJob>> {
  // Jobs stored before asset kinds existed carry a photo avatar's fields without `asset`.
  return assetKindOf({ ...job.input, asset: job.input.asset ?? 'photo' }).render(job.input, context);
}
