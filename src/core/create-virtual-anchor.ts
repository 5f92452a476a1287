import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { resolve } from 'node:path';
import type { VirtualAnchorOptions, ResolvedOptions } from './options.js';
import { resolveOptions } from './resolve-options.js';
import { toLogger, type Logger } from './logger.js';
import { TOKENS } from './tokens.js';
import { ApiError } from './errors.js';
import type { CoreRequest, CoreResponse } from './http/types.js';
import type { Route } from './http/router.js';
import { HttpCore } from './service.js';
import { LinkBuilder } from './links.js';
import type { ApiDeps } from './api/deps.js';
import { buildRoutes } from './api/routes.js';
import { buildOpenApi } from './api/openapi.js';
import { buildServices, type Services } from './wiring/build-services.js';
import { PrometheusMetrics } from './metrics/prometheus-metrics.js';
import { probeStores } from './operations/readiness.js';

/** A mounted instance of the service: what adapters wrap. Two instances never share state. */
export interface VirtualAnchor {
  /** Validated options with defaults applied. */
  readonly options: ResolvedOptions;
  /** This instance's tsyringe child container (backends are registered under {@link TOKENS}). */
  readonly container: DependencyContainer;
  /** Handles a framework-neutral request; `undefined` when the path is not one of this middleware's. */
  handle(request: CoreRequest): Promise<CoreResponse | undefined>;
  /** Resolves once storage is connected, the catalogue loaded and recovery started; rejects if start-up failed. */
  ready(): Promise<void>;
  /** Resolves when every avatar's catalogue assets exist (they are generated in the background). */
  avatarsReady(): Promise<void>;
  /** Stops background work, ends running jobs (as `error`, code `shutdown`) and closes storage it opened. */
  close(): Promise<void>;
}

/**
 * Builds one service instance: validates `options` (throws `OptionsError` at once), then starts
 * storage, catalogue and sweeper in the background. Requests wait for start-up; if it failed they get 503.
 */
export function createVirtualAnchor(options: VirtualAnchorOptions): VirtualAnchor {
  const { resolved, raw } = resolveOptions(options);
  const logger: Logger = toLogger(raw.logger);
  const container = rootContainer.createChildContainer();
  container.register(TOKENS.Options, { useValue: resolved });
  container.register(TOKENS.Logger, { useValue: logger });

  let services: Services | undefined;
  let failure: unknown;
  const metricsOption = typeof raw.metrics === 'object' ? raw.metrics : {};
  const metrics = resolved.metrics
    ? new PrometheusMetrics(
        metricsOption.register,
        () => services && ((kind) => services!.jobStore.uidsByStatus('pending', kind).then((uids) => uids.length)),
        logger,
      )
    : undefined;
  const starting = (async () => {
    // Let the caller register its own backends on `container` before the defaults are built.
    await Promise.resolve();
    return buildServices(container, resolved, raw, resolve(resolved.dataDir), logger, metrics);
  })().then(
    (built) => {
      services = built;
      built.start();
      return built;
    },
    (error: unknown) => {
      failure = error;
      logger.error('virtual-anchor failed to start', { error: String(error) });
      throw error;
    },
  );
  starting.catch(() => undefined);
  const started = (): Services => {
    if (!services) throw new Error('virtual-anchor is not started');
    return services;
  };

  const failureText = () => String((failure as Error)?.message ?? failure);
  const paging = { defaultPerPage: resolved.limits.defaultPerPage, maxPerPage: resolved.limits.maxPerPage };
  let openapi: object | undefined;
  const routes: Route[] = [];
  const deps: ApiDeps = {
    paging,
    maxJsonBytes: resolved.limits.maxJsonBytes,
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
    links: (baseUrl) => new LinkBuilder(started().signer, baseUrl, resolved.retention.linkTtlMs),
    openapi: () => (openapi ??= buildOpenApi(routes)),
    async readiness() {
      if (failure !== undefined) throw new ApiError(503, 'unavailable', `the service failed to start: ${failureText()}`);
      if (!services) throw new ApiError(503, 'unavailable', 'the service is starting');
      await probeStores(services);
    },
    metrics: resolved.metrics ? { path: resolved.metrics.path, scrape: () => metrics!.scrape() } : undefined,
  };
  routes.push(...buildRoutes(deps));
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
    async () => {
      await starting.catch(() => {
        throw new ApiError(503, 'unavailable', `the service failed to start: ${failureText()}`);
      });
    },
  );

  return {
    options: resolved,
    container,
    handle: (request) => http.handle(request),
    async ready() {
      await starting;
    },
    async avatarsReady() {
      await (await starting).catalogue.start();
    },
    async close() {
      const built = services ?? (await starting.catch(() => undefined));
      await built?.close();
    },
  };
}
