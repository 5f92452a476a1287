import { randomUUID } from 'node:crypto';
import type { AvatarVideoJob, Job, JobKind, JobStatus, JobWebhook, SeparationJob } from '../../domain/job.js';
import type { WebhookUrlCheck } from '../webhooks/webhook-url.js';
import { isFinal, sourcesOf } from '../../domain/state-machine.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { CreateAvatarVideoBody } from '../schemas/avatar-video.js';
import type { CreateSeparationBody } from '../schemas/separation.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../../domain/logger.js';
import type { InputPort, ResolvedInput } from './input-port.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { type DangerousFlag, isDangerous } from './dangerous-flag.js';

/** Containers accepted for separation (SPEC §4.6), decided by probing, not by file name. */
export const SEPARATION_CONTAINERS = ['mp3', 'wav', 'mp4', 'mov'];

/** Optional parts of {@link JobService}. */
export interface JobServiceExtras {
  /** Checks a creation's `webhookUrl` (throws a 400 `ApiError`); without it, `webhookUrl` is refused. */
  checkWebhookUrl?: WebhookUrlCheck;
  /** Ends a job in `error` and stops its engine if it runs here (the job runner's `fail`); false when already final. */
  end?: (uid: string, code: string, message: string) => Promise<boolean>;
}

/** Where the creating request came from: links in webhook payloads use its base URL. */
export interface CreationContext {
  baseUrl: string;
}

/** Limits the service applies at creation. */
export interface CreationLimits {
  maxAvatarAudioSec: number;
  maxSeparationSec: number;
}

/**
 * Creates, reads and lists jobs. Creation validates everything it can before the job exists
 * (avatar, audio reachable, type, duration), so a rejected request leaves no job and no file behind.
 */
export class JobService {
  constructor(
    private readonly store: JobStore,
    private readonly blobs: BlobStore,
    private readonly inputs: InputPort,
    private readonly queue: JobQueue,
    private readonly dangerous: DangerousFlag,
    /** Whether the owner may use this avatar uid: a catalogue avatar, or one of the owner's photo avatars. */
    private readonly avatarUsable: (uid: string, owner: string) => Promise<boolean>,
    private readonly limits: CreationLimits,
    private readonly logger: Logger,
    private readonly extras: JobServiceExtras = {},
  ) {}

  async createAvatarVideo(owner: string, body: CreateAvatarVideoBody, context?: CreationContext): Promise<AvatarVideoJob> {
    const webhook = await this.webhookOf(body.webhookUrl, context);
    if (!(await this.avatarUsable(body.avatarId, owner))) {
      throw ApiError.badRequest('unknown_avatar', `no avatar with uid ${body.avatarId}`, [
        { field: 'body.avatarId', message: 'no avatar with this uid; list them with GET /v2/avatar' },
      ]);
    }
    return this.withInputs(async (keep) => {
      const audio = keep(
        await this.inputs.resolve({
          url: body.audioUrl,
          owner,
          kind: 'audio',
          field: 'audioUrl',
          maxDurationSec: this.limits.maxAvatarAudioSec,
          maxDurationOption: 'limits.maxAvatarAudioSec',
        }),
      );
      const background = body.backgroundUrl
        ? keep(await this.inputs.resolve({ url: body.backgroundUrl, owner, kind: 'image', field: 'backgroundUrl' }))
        : undefined;
      const now = new Date().toISOString();
      const job: AvatarVideoJob = {
        kind: 'avatarVideo',
        uid: randomUUID(),
        owner,
        status: 'pending',
        createdAt: now,
        updatedAt: now,
        input: {
          audioUrl: body.audioUrl,
          avatarId: body.avatarId,
          ...(body.backgroundUrl ? { backgroundUrl: body.backgroundUrl } : {}),
          dangerousFlag: body.dangerousFlag === true,
          audio: audio.blob,
          ...(background ? { background: background.blob } : {}),
          durationSec: audio.durationSec,
          ...(body.dimension ? { dimension: { width: body.dimension.width, height: body.dimension.height } } : {}),
        },
        scratchBlobs: scratchIds(audio, background),
        ...webhook,
      };
      return job;
    });
  }

  async createSeparation(owner: string, body: CreateSeparationBody, context?: CreationContext): Promise<SeparationJob> {
    const webhook = await this.webhookOf(body.webhookUrl, context);
    return this.withInputs(async (keep) => {
      const audio = keep(
        await this.inputs.resolve({
          url: body.audioUri,
          owner,
          kind: 'audio',
          field: 'audioUri',
          allowedContainers: SEPARATION_CONTAINERS,
          maxDurationSec: this.limits.maxSeparationSec,
          maxDurationOption: 'limits.maxSeparationSec',
        }),
      );
      const now = new Date().toISOString();
      const job: SeparationJob = {
        kind: 'separation',
        uid: randomUUID(),
        taskId: randomUUID(),
        owner,
        status: 'pending',
        createdAt: now,
        updatedAt: now,
        input: { audioUri: body.audioUri, audio: audio.blob, durationSec: audio.durationSec },
        scratchBlobs: scratchIds(audio),
        ...webhook,
      };
      return job;
    });
  }

  /** The job's `webhook` field for a creation's `webhookUrl`, checked (400 when it cannot be accepted). */
  private async webhookOf(url: string | undefined, context: CreationContext | undefined): Promise<{ webhook?: JobWebhook }> {
    if (url === undefined) return {};
    if (!this.extras.checkWebhookUrl || !context) {
      throw ApiError.badRequest('webhooks_disabled', 'this service does not send webhooks', [{ field: 'body.webhookUrl', message: 'webhooks are off on this service' }]);
    }
    await this.extras.checkWebhookUrl(url);
    return { webhook: { url, baseUrl: context.baseUrl } };
  }

  /**
   * Cancels a `pending` or `ongoing` job of the owner: it ends in `error` with code `canceled` and its engine stops
   * (here at once; in another process within about a second, when its runner sees the status). A final job is a
   * 409 `conflict`, another owner's or a missing one a 404. Returns the job as it is now.
   */
  async cancel<K extends JobKind>(kind: K, uid: string, owner: string): Promise<Extract<Job, { kind: K }>> {
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
    const ended = this.extras.end ? await this.extras.end(uid, code, message) : await this.endHere(uid, message, code);
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
    await this.store.create(job);
    if (isDangerous(job)) await this.dangerous.arm(job);
    else {
      await this.queue.enqueue(job).catch((error: unknown) => {
        // The job exists and stays `pending`: the recovery sweep queues it once it is older than staleJobMs.
        this.logger.error('could not queue a job; the recovery sweep will', { uid: job.uid, kind: job.kind, error: String(error) });
      });
    }
  }

  /** Ends a job without a runner to stop (no `end` given): the store's compare-and-set alone. */
  private async endHere(uid: string, message: string, code = 'canceled'): Promise<boolean> {
    return (await this.store.transition(uid, sourcesOf('error'), 'error', { failure: { code, message } })) !== undefined;
  }

  /** Resolves inputs, stores and schedules the job; on any failure deletes the files it fetched. */
  private async withInputs<T extends Job>(build: (keep: (input: ResolvedInput) => ResolvedInput) => Promise<T>): Promise<T> {
    const fetched: ResolvedInput[] = [];
    try {
      const job = await build((input) => {
        fetched.push(input);
        return input;
      });
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

  /** A job of the owner, or a 404. */
  async get<K extends JobKind>(kind: K, uid: string, owner: string): Promise<Extract<Job, { kind: K }>> {
    const job = await this.store.get(uid, owner);
    if (!job || job.kind !== kind) throw ApiError.notFound(kind === 'avatarVideo' ? 'avatar video job' : 'source separation');
    return job as Extract<Job, { kind: K }>;
  }

  /** One page of the owner's jobs of a kind. */
  async list<K extends JobKind>(kind: K, owner: string, page: number, perPage: number, status?: JobStatus) {
    const result = await this.store.list({ owner, kind, page, perPage, status });
    return { total: result.total, items: result.items.filter((j): j is Extract<Job, { kind: K }> => j.kind === kind) };
  }
}

function scratchIds(...inputs: (ResolvedInput | undefined)[]): string[] {
  return inputs.filter((i): i is ResolvedInput => !!i && i.scratch).map((i) => i.blob.id);
}
