import { randomUUID } from 'node:crypto';
import type { AvatarVideoJob, Job, JobKind, JobStatus, SeparationJob } from '../job.js';
import type { JobStore } from '../../storage/job-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { CreateAvatarVideoBody } from '../schemas/avatar-video.js';
import type { CreateSeparationBody } from '../schemas/separation.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { InputPort, ResolvedInput } from './input-port.js';
import type { JobQueue } from '../../queue/job-queue.js';
import { type DangerousFlag, isDangerous } from './dangerous-flag.js';

/** Containers accepted for separation (SPEC §4.6), decided by probing, not by file name. */
export const SEPARATION_CONTAINERS = ['mp3', 'wav', 'mp4', 'mov'];

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
    private readonly avatarExists: (uid: string) => boolean,
    private readonly limits: CreationLimits,
    private readonly logger: Logger,
  ) {}

  async createAvatarVideo(owner: string, body: CreateAvatarVideoBody): Promise<AvatarVideoJob> {
    if (!this.avatarExists(body.avatarId)) {
      throw ApiError.badRequest('unknown_avatar', `no avatar with uid ${body.avatarId}`, [
        { field: 'body.avatarId', message: 'no avatar with this uid; list them with GET /v2/avatar' },
      ]);
    }
    return this.withInputs(async (keep) => {
      const audio = keep(
        await this.inputs.resolve({ url: body.audioUrl, owner, kind: 'audio', field: 'audioUrl', maxDurationSec: this.limits.maxAvatarAudioSec }),
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
        },
        scratchBlobs: scratchIds(audio, background),
      };
      return job;
    });
  }

  async createSeparation(owner: string, body: CreateSeparationBody): Promise<SeparationJob> {
    return this.withInputs(async (keep) => {
      const audio = keep(
        await this.inputs.resolve({
          url: body.audioUri,
          owner,
          kind: 'audio',
          field: 'audioUri',
          allowedContainers: SEPARATION_CONTAINERS,
          maxDurationSec: this.limits.maxSeparationSec,
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
      };
      return job;
    });
  }

  /** Resolves inputs, stores and schedules the job; on any failure deletes the files it fetched. */
  private async withInputs<T extends Job>(build: (keep: (input: ResolvedInput) => ResolvedInput) => Promise<T>): Promise<T> {
    const fetched: ResolvedInput[] = [];
    try {
      const job = await build((input) => {
        fetched.push(input);
        return input;
      });
      await this.store.create(job);
      if (isDangerous(job)) await this.dangerous.arm(job);
      else {
        await this.queue.enqueue(job).catch((error: unknown) => {
          // The job exists and stays `pending`: the recovery sweep queues it once it is older than staleJobMs.
          this.logger.error('could not queue a job; the recovery sweep will', { uid: job.uid, kind: job.kind, error: String(error) });
        });
      }
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
