import { cpus } from 'node:os';
import { makeKeyListAuthenticator, type AuthenticateFn } from './auth.js';
import { KindRegistry } from './kinds/registry.js';
import { OptionsError, optionsSchema, type ResolvedOptions, type VirtualAnchorOptions } from './options.js';

/** Validates options and applies defaults; throws {@link OptionsError} listing every problem. */
export function resolveOptions(input: VirtualAnchorOptions): { resolved: ResolvedOptions; raw: VirtualAnchorOptions } {
  const parsed = optionsSchema.safeParse(input ?? {});
  if (!parsed.success) {
    throw new OptionsError(parsed.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`));
  }
  const o = parsed.data;
  const byList = o.apiKeys?.length ? makeKeyListAuthenticator(o.apiKeys) : undefined;
  const custom = input.authenticate;
  const authenticate: AuthenticateFn =
    byList && custom ? async (key) => byList(key) || (await custom(key)) : (byList ?? (custom as AuthenticateFn));
  let kinds: KindRegistry;
  try {
    kinds = new KindRegistry(input.jobKinds ?? []);
  } catch (error) {
    throw new OptionsError([`jobKinds: ${(error as Error).message}`]);
  }
  const resolved: ResolvedOptions = {
    basePath: o.basePath,
    dataDir: o.dataDir,
    redisNamespace: o.redisNamespace,
    role: o.role,
    queue: o.queue ?? (o.redis ? 'bullmq' : 'memory'),
    maxAttempts: o.maxAttempts,
    redisTimeouts: o.redisTimeouts,
    shutdownTimeoutMs: o.shutdownTimeoutMs,
    allowPrivateUrls: o.allowPrivateUrls,
    dangerousFlagDelayMs: o.dangerousFlagDelayMs,
    authenticate,
    publicUrl: o.publicUrl?.replace(/\/+$/, ''),
    redis: o.redis,
    s3: o.s3,
    signingSecret: o.signingSecret,
    ffmpegPath: o.ffmpegPath,
    ffprobePath: o.ffprobePath,
    concurrency: {
      jobsPerKey: o.concurrency.jobsPerKey,
      engines: o.concurrency.engines ?? Math.max(1, cpus().length),
      v1RequestsPerKey: o.concurrency.v1RequestsPerKey,
      v2RequestsPerKey: o.concurrency.v2RequestsPerKey ?? Number.POSITIVE_INFINITY,
      maxQueuedRequestsPerKey: o.concurrency.maxQueuedRequestsPerKey,
    },
    limits: o.limits,
    metrics: o.metrics === false ? false : { path: (o.metrics === true ? undefined : o.metrics.path) ?? '/metrics' },
    retention: o.retention,
    webhooks: o.webhooks,
    kinds,
  };
  return { resolved, raw: input };
}
