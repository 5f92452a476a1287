import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * What `new Worker(...)` is given to run a module of this package on a worker thread: the module's URL, or a
 * bootstrap to evaluate (`{ eval: true }`).
 */
export type WorkerModule = URL | string;

/**
 * The worker module named `name` (without extension) in the folder of `base` (pass `import.meta.url`): the compiled
 * `.js` next to it; from the TypeScript sources (tests, examples run with tsx), a bootstrap that registers tsx in the
 * worker — which does not inherit the parent's `--import` loaders on Node 20 — and then imports the `.ts` module;
 * `undefined` when neither file is there (the package was bundled into one file), so that the caller can fall back
 * to its own thread.
 */
export function workerModule(base: string, name: string): WorkerModule | undefined {
  if (!base.startsWith('file:')) return undefined;
  const js = new URL(`./${name}.js`, base);
  if (existsSync(fileURLToPath(js))) return js;
  const ts = new URL(`./${name}.ts`, base);
  const tsx = resolveTsxApi();
  if (tsx && existsSync(fileURLToPath(ts))) {
    return `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(ts.href)}); });`;
  }
  return undefined;
}

/** Options for `new Worker(module, …)` that match {@link workerModule}'s two forms. */
export function workerModuleOptions(module: WorkerModule): { eval: boolean } {
  return { eval: typeof module === 'string' };
}

/** tsx's registration API, resolved from this module (not from the worker's working directory). */
function resolveTsxApi(): string | undefined {
  try {
    return import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
}
