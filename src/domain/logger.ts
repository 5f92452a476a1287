/** Where the service writes log lines. `console` and winston loggers fit; pino loggers are recognised (see {@link toLogger}). */
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

/** Whether `logger` is a pino logger, whose methods take `(fields, message)` (with `(message, fields)` pino drops the fields). */
function isPino(logger: object): boolean {
  const candidate = logger as { bindings?: unknown; child?: unknown; levels?: { values?: unknown } };
  return typeof candidate.bindings === 'function' && typeof candidate.child === 'function' && typeof candidate.levels?.values === 'object';
}

/** The logger of an instance from the `logger` option: `false` silences, pino is called its way, the default is the console. */
export function toLogger(given: Logger | false | undefined): Logger {
  if (given === false) return silentLogger;
  if (!given) return consoleLogger;
  if (!isPino(given)) return given;
  const pino = given as unknown as Record<keyof Logger, (fields: Record<string, unknown>, message: string) => void>;
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
  };
}
