import { createVirtualAnchor, type VirtualAnchor } from '../core/create-virtual-anchor.js';
import type { VirtualAnchorOptions } from '../core/options.js';

/** Accepts options or an instance built with `createVirtualAnchor` (to share one instance or close it later). */
export function toInstance(input: VirtualAnchorOptions | VirtualAnchor): VirtualAnchor {
  return isInstance(input) ? input : createVirtualAnchor(input);
}

function isInstance(input: VirtualAnchorOptions | VirtualAnchor): input is VirtualAnchor {
  return typeof (input as VirtualAnchor).handle === 'function' && typeof (input as VirtualAnchor).close === 'function';
}
