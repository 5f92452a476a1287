import type { JobKind, JobStatus } from '../../domain/job.js';

/**
 * What the core reports to the metrics, whether or not they are enabled (a no-op when off). Resolve it from
 * the instance container under `TOKENS.Metrics` to report from another part, e.g. webhook deliveries.
 */
export interface MetricsRecorder {
  /** A job reached `status` (`pending` when created). */
  jobReached(kind: JobKind, status: JobStatus): void;
  /** A job went from `ongoing` to a final state after `seconds`; `inputSeconds` is its media's duration. */
  jobFinished(kind: JobKind, status: 'completed' | 'error', seconds: number, inputSeconds: number): void;
  /** One webhook delivery attempt ended: `delivered`, `failed` (will retry), `gave_up`, … */
  webhookDelivery(outcome: string): void;
}

/** The recorder when metrics are off. */
export const noMetrics: MetricsRecorder = {
  jobReached: () => undefined,
  jobFinished: () => undefined,
  webhookDelivery: () => undefined,
};
