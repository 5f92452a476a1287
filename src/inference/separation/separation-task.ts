import type { JobProgress } from '../../domain/job.js';
import type { SeparationInput } from '../../domain/engines.js';
import type { SeparationSettings } from './separate.js';

/** One separation, as sent to the separation worker. */
export interface SeparationTask {
  settings: SeparationSettings;
  input: SeparationInput;
}

/** What the separation worker tells the engine while a task runs. */
export type SeparationEvent =
  | { type: 'progress'; progress: JobProgress }
  /** The model is loaded, with these execution providers. */
  | { type: 'model'; executionProviders: string[] }
  | { type: 'warn'; message: string; fields?: Record<string, unknown> };
