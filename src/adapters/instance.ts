import { createVirtualAnchor, type VirtualAnchor } from '../core/create-virtual-anchor.js';
import { consoleLogger, type Logger } from '../domain/logger.js';
import type { VirtualAnchorOptions } from '../core/options.js';
import { TOKENS } from '../core/tokens.js';

/** Accepts options or an instance built with `createVirtualAnchor` (to share one instance or close it later). */
export function toInstance(input: VirtualAnchorOptions | VirtualAnchor): VirtualAnchor {
  return isInstance(input) ? input : createVirtualAnchor(input);
}

/**
 * The instance's logger (registered in its container), for failures an adapter meets while writing an answer.
 * A host logger that throws cannot break the adapter's last line of defence: its exception becomes a process
 * warning instead.
 */
export function loggerOf(instance: VirtualAnchor): Logger {
  const container = instance.container as VirtualAnchor['container'] | undefined;
  const logger = container?.isRegistered(TOKENS.Logger) ? container.resolve<Logger>(TOKENS.Logger) : consoleLogger;
  const guarded = (level: keyof Logger) => (message: string, fields?: Record<string, unknown>) => {
    try {
      logger[level](message, fields);
    } catch (error) {
      // The host's logger itself failed: Node's warning channel (stderr) takes the line instead.
      process.emitWarning(`virtual-anchor: the logger threw while reporting "${message}": ${String(error)}`);
    }
  };
  return { debug: guarded('debug'), info: guarded('info'), warn: guarded('warn'), error: guarded('error') };
}

function isInstance(input: VirtualAnchorOptions | VirtualAnchor): input is VirtualAnchor {
  return typeof (input as VirtualAnchor).handle === 'function' && typeof (input as VirtualAnchor).close === 'function';
}
