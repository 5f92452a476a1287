/**
 * The bench draws frames in its own process too (the drawing's CPU, the content encode): this applies the
 * environment defaults of the engines' children (src/inference/workers/child-env.ts: the canvas allocator's
 * settings, read once when the canvas library loads) to this process, so that it draws as a frame child does.
 * Imported first by run.ts, before anything loads the canvas library; a variable already set is kept.
 */
import { CHILD_ENV_DEFAULTS } from '../../src/inference/workers/child-env.js';

for (const [name, value] of Object.entries(CHILD_ENV_DEFAULTS)) process.env[name] ??= value;
