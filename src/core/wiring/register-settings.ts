import type { DependencyContainer } from 'tsyringe';
import type { ResolvedOptions } from '../options.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { CatalogueSettings } from '../avatars/avatar-catalogue.js';
import type { OwnedAvatarSettings } from '../avatars/owned-avatars.js';
import type { JobRunnerSettings } from '../jobs/job-runner.js';
import type { DangerousFlagSettings } from '../jobs/dangerous-flag.js';
import type { RecoverySettings } from '../maintenance/recovery.js';
import type { SweeperSettings } from '../maintenance/sweeper.js';
import { DELIVERY_LIMITS, type WebhookDispatcherSettings } from '../webhooks/dispatcher.js';
import type { IdempotencySettings } from '../idempotency/idempotency.js';

const DAY_MS = 24 * 3_600_000;

/**
 * Registers the settings of the instance's parts under {@link SERVICES}: each part's slice of the resolved options
 * (and the job kinds), so a constructor takes one settings object rather than loose numbers. Registered after the
 * backends: whether this process makes catalogue assets depends on the avatar renderer it has.
 */
export function registerSettings(container: DependencyContainer): void {
  const options = container.resolve<ResolvedOptions>(TOKENS.Options);
  const value = <T>(token: symbol, useValue: T) => container.register<T>(token, { useValue });

  value<KindRegistry>(SERVICES.Kinds, options.kinds);
  value<JobRunnerSettings>(SERVICES.JobRunnerSettings, {
    resultsMs: options.retention.resultsMs,
    heartbeatMs: heartbeatInterval(options.retention.staleJobMs),
    timeout: { baseMs: options.limits.jobTimeoutMs, perInputSecondMs: options.limits.jobTimeoutPerInputSecondMs },
    maxAttempts: options.maxAttempts,
    engineStopGraceMs: options.limits.engineStopGraceMs,
  });
  value<DangerousFlagSettings>(SERVICES.DangerousFlagSettings, { delayMs: options.dangerousFlagDelayMs });
  value<RecoverySettings>(SERVICES.RecoverySettings, { staleJobMs: options.retention.staleJobMs });
  value<SweeperSettings>(SERVICES.SweeperSettings, { intervalMs: options.retention.sweepIntervalMs });
  value<OwnedAvatarSettings>(SERVICES.OwnedAvatarSettings, { staleMs: options.retention.staleJobMs });
  // Catalogue assets are made by a process that runs engines and can draw them; any process reads their state.
  value<CatalogueSettings>(SERVICES.CatalogueSettings, { makesAssets: container.isRegistered(TOKENS.AvatarRenderer, true) });
  // A creation may download its inputs (up to the download timeout) before answering: the reservation outlasts that.
  value<IdempotencySettings>(SERVICES.IdempotencySettings, {
    ttlMs: DAY_MS,
    reserveMs: Math.max(300_000, 3 * options.limits.downloadTimeoutMs),
    waitMs: 10_000,
    pollMs: 100,
  });
  const secret = options.webhooks.secret;
  if (secret) {
    value<WebhookDispatcherSettings>(SERVICES.WebhookSettings, {
      secret,
      pollMs: options.webhooks.pollMs,
      retryDelaysMs: options.webhooks.retryDelaysMs,
      timeoutMs: options.webhooks.timeoutMs,
      ...DELIVERY_LIMITS,
      allowPrivateAddresses: options.allowPrivateUrls,
      kinds: options.kinds,
    });
  }
}

/** A running job's heartbeat: eight per `staleJobMs` (so a few lost writes never look like a dead process), at most every 15 s. */
function heartbeatInterval(staleJobMs: number): number {
  return Math.max(50, Math.min(15_000, Math.floor(staleJobMs / 8)));
}
