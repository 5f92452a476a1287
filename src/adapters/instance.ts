import { createVirtualAnchor, type VirtualAnchor } from '../core/create-virtual-anchor.js';
import { consoleLogger, type Logger } from '../core/logger.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import { TOKENS } from '../core/tokens.js';

/** Accepts options or an instance built with `createVirtualAnchor` (to share one instance or close it later). */
export function toInstance(input: VirtualAnchorOptions | VirtualAnchor): VirtualAnchor {
  return isInstance(input) ? input : createVirtualAnchor(input);
}

/** The instance's logger (registered in its container), for failures an adapter meets while writing an answer. */
export function loggerOf(instance: VirtualAnchor): Logger {
  const container = instance.container as VirtualAnchor['container'] | undefined;
  return container?.isRegistered(TOKENS.Logger) ? container.resolve<Logger>(TOKENS.Logger) : consoleLogger;
}

function isInstance(input: VirtualAnchorOptions | VirtualAnchor): input is VirtualAnchor {
  return typeof (input as VirtualAnchor).handle === 'function' && typeof (input as VirtualAnchor).close === 'function';
}
