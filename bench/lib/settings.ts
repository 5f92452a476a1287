/** Knobs shared by every bench section, from the environment. */
export interface BenchSettings {
  /** Measured time per scenario (`BENCH_DURATION_MS`, default 3000). */
  durationMs: number;
  /** Unmeasured warm-up per scenario (`BENCH_WARMUP_MS`, default 500). */
  warmupMs: number;
  /** Requests in flight at once (`BENCH_CONCURRENCY`, default 16). */
  concurrency: number;
  /** Upper bound of requests per scenario (`BENCH_MAX_REQUESTS`, default 200 000). */
  maxRequests: number;
}

function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got ${raw}`);
  return value;
}

export function settingsFromEnv(): BenchSettings {
  return {
    durationMs: positive('BENCH_DURATION_MS', 3000),
    warmupMs: positive('BENCH_WARMUP_MS', 500),
    concurrency: positive('BENCH_CONCURRENCY', 16),
    maxRequests: positive('BENCH_MAX_REQUESTS', 200_000),
  };
}

/** One result line: printed as a single JSON object on stdout. */
export type BenchLine = { bench: string } & Record<string, unknown>;

/** A bench section: runs its scenarios and hands each line to `emit` as soon as it is measured. */
export type BenchSection = (settings: BenchSettings, emit: (line: BenchLine) => void) => Promise<void>;
