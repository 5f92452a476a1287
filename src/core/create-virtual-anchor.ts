import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { OptionsError, type VirtualAnchorOptions, type ResolvedOptions } from './options.js';
import { resolveOptions } from './resolve-options.js';
import { toLogger, type Logger } from '../domain/logger.js';
import { TOKENS } from './tokens.js';
import { SERVICES } from './service-tokens.js';
import { ApiError, UNAVAILABLE_RETRY_AFTER_S } from './errors.js';
import type { CoreRequest, CoreResponse } from './http/types.js';
import type { Route } from './http/router.js';
import { HttpCore } from './service.js';
import type { LinkBuilder } from './links.js';
import { optionDeps, type ApiDeps } from './api/deps.js';
import { buildRoutes, servedRoutes } from './api/routes.js';
import { optionsOnlyDeps } from './api/served-openapi.js';
import { shadowedRoutes } from './api/shadowed-routes.js';
import { buildOpenApi } from './api/openapi.js';
import { buildServices, type Services } from './wiring/build-services.js';
import { Startup } from './startup.js';
import type { JobStore } from '../storage/job-store.js';
import { PrometheusMetrics, type PendingCounter } from './metrics/prometheus-metrics.js';
import { probeStores } from './operations/readiness.js';
import { noMetrics, type MetricsRecorder } from './metrics/metrics-recorder.js';

/** Base URLs whose link builders an instance keeps at once. */
const MAX_LINK_BUILDERS = 16;

/** A mounted instance of the service: what adapters wrap. Two instances never share state. */
export interface VirtualAnchor {
  /** Validated options with defaults applied. */
  readonly options: ResolvedOptions;
  /** This instance's tsyringe child container (backends are registered under {@link TOKENS}). */
  readonly container: DependencyContainer;
  /** Handles a framework-neutral request; `undefined` when the path is not one of this middleware's. */
  handle(request: CoreRequest): Promise<CoreResponse | undefined>;
  /**
   * Resolves once the services are built, recovery started and the job store answers a ping.
   * Rejects when start-up failed or the store is unreachable; neither is permanent: the instance
   * keeps retrying (start-up on the next request or call, the store in the background), and a later
   * `ready()` resolves once it succeeded.
   */
  ready(): Promise<void>;
  /** Resolves when every avatar's catalogue assets exist (they are generated in the background). */
  avatarsReady(): Promise<void>;
  /**
   * Stops background work, ends running jobs (as `error`, code `shutdown`) and closes storage it
   * opened. Idempotent; never rejects, and resolves within `shutdownTimeoutMs` whatever the store does
   * (a failure or the time limit is logged).
   */
  close(): Promise<void>;
}

/**
 * Builds one service instance: validates `options` (throws `OptionsError` at once), then starts
 * storage, catalogue and sweeper in the background. Requests wait for start-up; if it failed they get 503
 * and a later request tries again. While the job store is unreachable, routes that need it answer 503.
 */
export function createVirtualAnchor(options: VirtualAnchorOptions): VirtualAnchor {
  const { resolved, raw } = resolveOptions(options);
  // A job kind's routes must be reachable: none under or on another route (checked before anything starts).
  const shadowed = shadowedRoutes(buildRoutes(optionsOnlyDeps(resolved)));
  if (shadowed.length > 0) throw new OptionsError(shadowed.map((problem) => `jobKinds (or metrics.path): ${problem}`));
  const logger: Logger = toLogger(raw.logger);
  const container = rootContainer.createChildContainer();

  const metricsOption = typeof raw.metrics === 'object' ? raw.metrics : {};
  const metrics = resolved.metrics
    ? new PrometheusMetrics(
        metricsOption.register,
        (): PendingCounter | undefined => {
          const services: Services | undefined = startup.value;
          return services && ((kind) => services.jobStore.uidsByStatus('pending', kind).then((uids) => uids.length));
        },
        logger,
        resolved.kinds,
      )
    : undefined;
  // The instance's own values: the services resolve them from here, as an operator's backends may.
  container.register<ResolvedOptions>(TOKENS.Options, { useValue: resolved });
  container.register<Logger>(TOKENS.Logger, { useValue: logger });
  container.register<MetricsRecorder>(TOKENS.Metrics, { useValue: metrics ?? noMetrics });
  const startup: Startup<Services> = new Startup<Services>(
    async () => {
      // Let the caller register its own backends on `container` before the defaults are built.
      await Promise.resolve();
      return buildServices(container, raw);
    },
    (built) => built.start(),
    logger,
  );
  startup.start();
  let closing: Promise<void> | undefined;
  const started = (): Services => {
    const services = startup.value;
    if (!services) throw new Error('virtual-anchor is not started');
    return services;
  };

  const failureText = (error: unknown) => String((error as Error)?.message ?? error);
  let openapi: object | undefined;
  const linkBuilders = new Map<string, LinkBuilder>();
  const routes: Route[] = [];
  const deps: ApiDeps = {
    ...optionDeps(resolved, () => metrics!.scrape()),
    get jobs() {
      return started().jobs;
    },
    get catalogue() {
      return started().catalogue;
    },
    get blobs() {
      return started().blobs;
    },
    get signer() {
      return started().signer;
    },
    get uploads() {
      return started().uploads;
    },
    get idempotency() {
      return started().idempotency;
    },
    get photoAvatars() {
      return started().photoAvatars;
    },
    get ownedAvatars() {
      return started().ownedAvatars;
    },
    get photoUploads() {
      return started().photoUploads;
    },
    get photoInputs() {
      return started().photoInputs;
    },
    get videoAvatars() {
      return started().videoAvatars;
    },
    get avatarUploads() {
      return started().avatarUploads;
    },
    get videoInputs() {
      return started().videoInputs;
    },
    links: (baseUrl) => {
      // One builder per base URL (it remembers the links it signed); a few base URLs at most unless `publicUrl` is
      // unset and clients send many Host headers, so the map starts over when it grows.
      let builder = linkBuilders.get(baseUrl);
      if (!builder) {
        if (linkBuilders.size >= MAX_LINK_BUILDERS) linkBuilders.clear();
        started(); // throws until start-up has registered the instance's parts, the link factory among them
        builder = container.resolve<(baseUrl: string) => LinkBuilder>(SERVICES.LinkFactory)(baseUrl);
        linkBuilders.set(baseUrl, builder);
      }
      return builder;
    },
    openapi: () => (openapi ??= buildOpenApi(routes, resolved.kinds)),
    async readiness() {
      const services = startup.value;
      if (services) return probeStores(services);
      const failure = startup.failure;
      if (failure !== undefined) throw new ApiError(503, 'unavailable', `the service failed to start: ${failureText(failure)}`);
      throw new ApiError(503, 'unavailable', 'the service is starting');
    },
  };
  // A worker serves no API: only its health, readiness (and metrics); every other request passes on.
  routes.push(...servedRoutes(resolved.role, deps));
  const http = new HttpCore(
    routes,
    {
      basePath: resolved.basePath,
      publicUrl: resolved.publicUrl,
      authenticate: resolved.authenticate,
      requestsPerKey: { v1: resolved.concurrency.v1RequestsPerKey, v2: resolved.concurrency.v2RequestsPerKey },
      maxQueuedRequestsPerKey: resolved.concurrency.maxQueuedRequestsPerKey,
    },
    logger,
    () =>
      startup.value !== undefined
        ? undefined
        : startup.get().then(
            () => undefined,
            (error: unknown) => {
              throw new ApiError(503, 'unavailable', `the service failed to start: ${failureText(error)}`, undefined, {
                'retry-after': UNAVAILABLE_RETRY_AFTER_S,
              });
            },
          ),
  );

  return {
    options: resolved,
    container,
    handle: (request) => http.handle(request),
    async ready() {
      await startup.get();
      await container.resolve<JobStore>(TOKENS.JobStore).ping?.();
    },
    async avatarsReady() {
      await (await startup.get()).catalogue.start();
    },
    close() {
      closing ??= closeWithin(resolved.shutdownTimeoutMs, logger, async () => {
        const built = await startup.close();
        await built?.close();
      });
      return closing;
    },
  };
}

/** Runs `close`, resolving after `limitMs` at the latest; a failure or the time limit is logged. Never rejects. */
async function closeWithin(limitMs: number, logger: Logger, close: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    close().then(
      () => 'closed' as const,
      (error: unknown) => {
        logger.error('virtual-anchor did not close cleanly', { error: String((error as Error)?.stack ?? error) });
        return 'failed' as const;
      },
    ),
    new Promise<'late'>((done) => {
      timer = setTimeout(() => done('late'), limitMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
  if (outcome === 'late') logger.error('virtual-anchor did not finish closing in time; giving up waiting', { shutdownTimeoutMs: limitMs });
}
