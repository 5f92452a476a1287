import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

/** One load run: concurrent keep-alive GETs of one URL for a fixed time, bounded by a request count. */
export interface LoadOptions {
  /** Absolute http URL to GET. */
  url: string;
  headers?: Record<string, string>;
  /** Requests in flight at once (one keep-alive socket each). */
  concurrency: number;
  /** How long to fire requests. */
  durationMs: number;
  /** Stop earlier after this many requests. */
  maxRequests: number;
}

/** What a load run measured. */
export interface LoadResult {
  requests: number;
  /** Responses that were not 2xx, plus network errors. */
  errors: number;
  elapsedMs: number;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

/** The `q`-quantile (0..1) of ascending `sorted`, nearest rank. */
export function quantile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function get(agent: Agent, url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * Fires `concurrency` request loops at `url` over keep-alive sockets (like autocannon, without the dependency)
 * and reports throughput and latency percentiles.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies = new Float64Array(options.maxRequests);
  let issued = 0;
  let done = 0;
  let errors = 0;
  const start = performance.now();
  const deadline = start + options.durationMs;
  const loop = async () => {
    while (issued < options.maxRequests && performance.now() < deadline) {
      issued++;
      const t0 = performance.now();
      const status = await get(agent, url, options.headers ?? {});
      latencies[done++] = performance.now() - t0;
      if (status < 200 || status > 299) errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  const elapsedMs = performance.now() - start;
  agent.destroy();
  const sorted = latencies.subarray(0, done).sort();
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    requests: done,
    errors,
    elapsedMs: round(elapsedMs),
    requestsPerSec: Math.round((done / elapsedMs) * 1000),
    p50Ms: round(quantile(sorted, 0.5)),
    p99Ms: round(quantile(sorted, 0.99)),
  };
}
