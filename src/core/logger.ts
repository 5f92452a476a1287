/** Where the service writes log lines. `console` fits; so do pino and winston loggers. */
export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const noop = (): void => undefined;

/** A logger that drops everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** The default: warnings and errors to the console, prefixed with the package name. */
export const consoleLogger: Logger = {
  debug: noop,
  info: noop,
  warn: (message, fields) => console.warn(`[virtual-anchor] ${message}`, fields ?? ''),
  error: (message, fields) => console.error(`[virtual-anchor] ${message}`, fields ?? ''),
};
