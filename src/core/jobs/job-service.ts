import { randomUUID } from 'node:crypto';
import type { Job, JobKind, JobStatus, JobWebhook, ListResult } from '../../domain/job.js';
import type { WebhookUrlCheck } from '../webhooks/webhook-url.js';
import { isFinal } from '../../domain/state-machine.js';
import type { JobStore } from '../../storage/job-store.js';
import { confirmReachable } from '../../storage/confirm-reachable.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../../domain/logger.js';
import type { InputPort, InputRequest, ResolvedInput } from './input-port.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { KindServices } from '../kinds/kind-spec.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { type DangerousFlag, isDangerous } from './dangerous-flag.js';
import type { JobEnding, JobScheduling } from './job-ports.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** Where the creating request came from: links in webhook payloads use its base URL. */
export interface CreationContext {
  baseUrl: string;
  /** The request's `signal`: passed to every input the kind resolves (see {@link InputRequest.signal}). */
  signal?: AbortSignal;
}

/**
 * Creates, reads, lists and cancels jobs of any kind (its spec in the {@link KindRegistry} says how). Creation
 * validates everything it can before the job exists (avatar, audio reachable, type, duration), so a rejected request
 * leaves no job and no file behind.
 */
@injectable()
export class JobService implements JobScheduling {
  constructor(
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    /** Resolves the inputs of creations (URLs, uploads), limited to `limits.maxDownloadBytes`. */
    @inject(SERVICES.JobInputs) private readonly inputs: InputPort,
    @inject(TOKENS.JobQueue) private readonly queue: JobQueue,
    @inject(SERVICES.DangerousFlag) private readonly dangerous: DangerousFlag,
    /** The instance's job kinds: how each is created, and what its 404 names. */
    @inject(SERVICES.Kinds) private readonly kinds: KindRegistry,
    /** What the kinds' `create` may use. */
    @inject(SERVICES.KindServices) private readonly services: KindServices,
    /** Checks a creation's `webhookUrl` (throws a 400 `ApiError`, e.g. when webhooks are off). */
    @inject(SERVICES.WebhookUrlCheck) private readonly checkWebhookUrl: WebhookUrlCheck,
    /** Ends jobs, stopping their engine when it runs here (the job runner). */
    @inject(SERVICES.JobEnding) private readonly ending: JobEnding,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /**
   * Creates a job of `kind` from its validated creation body: the kind's `create` resolves its inputs (a refused
   * request leaves no file), then the job is stored `pending` and queued. While the job store says it is down
   * ({@link JobStore.suspectedDown}), a ping decides first: an unreachable store is a `StoreUnavailableError` before
   * any input is downloaded or checked.
   */
  async create(kind: string, owner: string, body: unknown, context?: CreationContext): Promise<Job> {
    const api = this.kinds.get(kind).api;
    if (!api) throw new Error(`job kind ${kind} has no API resource to create it through`);
    const webhook = await this.webhookOf(webhookUrlOf(body), api.webhook !== undefined, context);
    // During a store outage, 503 now rather than after the downloads and input checks (a ping only then).
    await confirmReachable(this.store);
    return this.withInputs(async (input) => {
      const fields = await api.create(body, { owner, services: this.services, input: (request) => input({ ...request, owner, signal: context?.signal }) });
      const now = new Date().toISOString();
      const job: Job = { kind, uid: randomUUID(), owner, status: 'pending', createdAt: now, updatedAt: now, ...fields, ...webhook };
      return job;
    });
  }

  /** The job's `webhook` field for a creation body's `webhookUrl`, checked (400 when it cannot be accepted). */
  private async webhookOf(url: string | undefined, sendsWebhooks: boolean, context: CreationContext | undefined): Promise<{ webhook?: JobWebhook }> {
    if (url === undefined) return {};
    if (!sendsWebhooks) {
      throw ApiError.badRequest('webhooks_disabled', 'jobs of this kind send no webhooks', [{ field: 'body.webhookUrl', message: 'this kind of job sends no webhooks' }]);
    }
    if (!context) {
      throw ApiError.badRequest('webhooks_disabled', 'this service does not send webhooks', [{ field: 'body.webhookUrl', message: 'webhooks are off on this service' }]);
    }
    await this.checkWebhookUrl(url);
    return { webhook: { url, baseUrl: context.baseUrl } };
  }

  /**
   * Cancels a `pending` or `ongoing` job of the owner: it ends in `error` with code `canceled` and its engine stops
   * (here at once; in another process within about a second, when its runner sees the status). A final job is a
   * 409 `conflict`, another owner's or a missing one a 404. Returns the job as it is now.
   */
  async cancel(kind: JobKind, uid: string, owner: string): Promise<Job> {
    const job = await this.get(kind, uid, owner);
    const message = 'the job was canceled by its owner';
    // Its queue entry would find the job ended anyway; `end` drops it to save a delivery.
    const ended = isFinal(job.status) ? false : await this.end(uid, 'canceled', message);
    if (!ended) {
      const now = await this.get(kind, uid, owner);
      throw new ApiError(409, 'conflict', `the job is ${now.status} already; only a pending or ongoing job can be canceled`);
    }
    return this.get(kind, uid, owner);
  }

  /**
   * Ends a `pending` or `ongoing` job in `error` with `code`, stopping its engine (here at once, elsewhere within
   * about a second), and drops its queue entry. False when it was final (or missing) already.
   */
  async end(uid: string, code: string, message: string): Promise<boolean> {
    const ended = await this.ending.fail(uid, code, message);
    await this.queue.remove(uid).catch((error: unknown) => {
      this.logger.warn('could not drop an ended job from the queue; its delivery will find it ended', { uid, error: String(error) });
    });
    return ended;
  }

  /**
   * Stores a new `pending` job and hands it to the queue (or arms its `dangerousFlag` deadline). A job the queue
   * could not take stays `pending`: the recovery sweep queues it.
   */
  async schedule(job: Job): Promise<void> {
    // A kind whose records are the state of something else keeps them until that is deleted.
    if (this.kinds.find(job.kind)?.record === 'kept') job = { ...job, kept: true };
    await this.store.create(job);
    if (isDangerous(job)) await this.dangerous.arm(job);
    else {
      await this.queue.enqueue(job).catch((error: unknown) => {
        // The job exists and stays `pending`: the recovery sweep queues it once it is older than staleJobMs.
        this.logger.error('could not queue a job; the recovery sweep will', { uid: job.uid, kind: job.kind, error: String(error) });
      });
    }
  }

  /**
   * Builds the job with an input resolver that remembers what it resolved, stores and schedules it; on any failure
   * deletes the files it fetched. The job's `scratchBlobs` are the resolved blobs the service made (downloads).
   */
  private async withInputs(build: (input: (request: InputRequest) => Promise<ResolvedInput>) => Promise<Job>): Promise<Job> {
    const fetched: ResolvedInput[] = [];
    try {
      const built = await build(async (request) => {
        const resolved = await this.inputs.resolve(request);
        fetched.push(resolved);
        return resolved;
      });
      const scratch = fetched.filter((i) => i.scratch).map((i) => i.blob.id);
      const job: Job = scratch.length > 0 ? { ...built, scratchBlobs: scratch } : built;
      await this.schedule(job);
      return job;
    } catch (error) {
      await Promise.all(
        fetched
          .filter((i) => i.scratch)
          .map((i) =>
            this.blobs.delete(i.blob.id).catch((cause: unknown) => {
              this.logger.warn('could not delete an input of a refused job; retention will', { blob: i.blob.id, error: String(cause) });
            }),
          ),
      );
      throw error;
    }
  }

  /** A job of the owner, or a 404 naming the kind's resource (its `notFound`). */
  async get(kind: JobKind, uid: string, owner: string): Promise<Job> {
    const job = await this.store.get(uid, owner);
    if (!job || job.kind !== kind) throw ApiError.notFound(this.kinds.get(kind).api?.notFound ?? `${kind} job`);
    return job;
  }

  /** One page of the owner's jobs of a kind. */
  async list(kind: JobKind, owner: string, page: number, perPage: number, status?: JobStatus): Promise<ListResult<Job>> {
    const result = await this.store.list({ owner, kind, page, perPage, status });
    return { total: result.total, items: result.items.filter((job) => job.kind === kind) };
  }
}

/** The `webhookUrl` of a creation body, when it has one. */
function webhookUrlOf(body: unknown): string | undefined {
  const url = body && typeof body === 'object' ? (body as { webhookUrl?: unknown }).webhookUrl : undefined;
  return typeof url === 'string' ? url : undefined;
}
