import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { JobKind, JobStatus } from '../../domain/job.js';
import type { Logger } from '../../domain/logger.js';
import type { MetricsRecorder } from './metrics-recorder.js';
import type { KindRegistry } from '../kinds/registry.js';

/** Counts jobs waiting to run, read from the job store at scrape time. */
export type PendingCounter = (kind: JobKind) => Promise<number>;

/**
 * The Prometheus metrics of one instance (prom-client), kept in the instance's own {@link Registry} unless
 * the operator gave one (then two instances must not share it: metric names would clash).
 *
 * - `virtual_anchor_jobs_total{kind,status}`: jobs reaching each status (`pending` at creation).
 * - `virtual_anchor_job_duration_seconds{kind,status}`: from `ongoing` to `completed` or `error`.
 * - `virtual_anchor_queue_depth{kind}`: jobs `pending` (every key), read from the job store at scrape time.
 * - `virtual_anchor_engine_realtime_factor{kind}`: processing seconds per second of input media (completed jobs).
 * - `virtual_anchor_webhook_deliveries_total{outcome}`: webhook delivery attempts by outcome.
 */
export class PrometheusMetrics implements MetricsRecorder {
  readonly registry: Registry;
  private readonly jobs: Counter<'kind' | 'status'>;
  private readonly duration: Histogram<'kind' | 'status'>;
  private readonly realtime: Histogram<'kind'>;
  private readonly webhooks: Counter<'outcome'>;

  /**
   * @param pending counts pending jobs; `undefined` until the job store is up (the gauge then reports nothing).
   */
  constructor(
    registry: Registry | undefined,
    pending: () => PendingCounter | undefined,
    logger: Logger,
    /** The instance's job kinds: each is a `kind` label (its `metricLabel`). */
    private readonly kinds: KindRegistry,
  ) {
    this.registry = registry ?? new Registry();
    const registers = [this.registry];
    this.jobs = new Counter({
      name: 'virtual_anchor_jobs_total',
      help: 'Jobs reaching each status (pending when created)',
      labelNames: ['kind', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'virtual_anchor_job_duration_seconds',
      help: 'Seconds from ongoing to completed or error',
      labelNames: ['kind', 'status'],
      buckets: [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.realtime = new Histogram({
      name: 'virtual_anchor_engine_realtime_factor',
      help: 'Processing seconds per second of input media, per completed job',
      labelNames: ['kind'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16],
      registers,
    });
    this.webhooks = new Counter({
      name: 'virtual_anchor_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'virtual_anchor_queue_depth',
      help: 'Jobs pending (all keys), read from the job store at scrape time',
      labelNames: ['kind'],
      registers,
      async collect() {
        const count = pending();
        if (!count) return;
        try {
          const all = kinds.all;
          const depths = await Promise.all(all.map((spec) => count(spec.kind)));
          all.forEach((spec, i) => this.set({ kind: spec.metricLabel ?? spec.kind }, depths[i]!));
        } catch (error) {
          // The scrape still answers; the gauge keeps its last values.
          logger.warn('metrics: could not read the queue depth from the job store', { error: String(error) });
        }
      },
    });
  }

  jobReached(kind: JobKind, status: JobStatus): void {
    this.jobs.inc({ kind: this.label(kind), status });
  }

  jobFinished(kind: JobKind, status: 'completed' | 'error', seconds: number, inputSeconds: number): void {
    const label = this.label(kind);
    this.duration.observe({ kind: label, status }, seconds);
    if (status === 'completed' && inputSeconds > 0) this.realtime.observe({ kind: label }, seconds / inputSeconds);
  }

  /** The `kind` label of a job kind. */
  private label(kind: JobKind): string {
    return this.kinds.find(kind)?.metricLabel ?? kind;
  }

  webhookDelivery(outcome: string): void {
    this.webhooks.inc({ outcome });
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }
}
