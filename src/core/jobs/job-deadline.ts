import type { Job } from '../../domain/job.js';
import { JobFailedError } from './job-failure.js';

/** How long a job may run: `baseMs` plus `perInputSecondMs` for every second of its input. */
export interface JobTimeout {
  baseMs: number;
  perInputSecondMs: number;
}

/** The longest delay `setTimeout` keeps (about 24.8 days); longer budgets are cut to it. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The time a job may spend `ongoing` before it ends in `error` with code `timeout`, in ms. */
export function jobBudgetMs(job: Job, timeout: JobTimeout): number {
  const seconds = Number.isFinite(job.input.durationSec) ? Math.max(0, job.input.durationSec) : 0;
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.round(timeout.baseMs + seconds * timeout.perInputSecondMs)));
}

/** The abort reason of a job that ran past its budget. */
export function timeoutError(budgetMs: number): JobFailedError {
  const seconds = Math.round(budgetMs / 100) / 10;
  return new JobFailedError({ code: 'timeout', message: `the job did not finish within its time limit of ${seconds} s and was stopped` });
}
