import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resultBlobIds, type BlobRef, type ListResult } from '../../domain/job.js';
import type { AvatarPrepareJob } from '../kinds/avatar-prepare/record.js';
import type { FaceDetector } from '../../domain/engines.js';
import { NotAnImageError, type FaceDetection } from '../../domain/avatar/photo.js';
import { PHOTO_AVATAR_FPS, type PhotoAvatar } from '../../domain/avatar/photo-avatar.js';
import type { Logger } from '../../domain/logger.js';
import type { AvatarStore } from '../../storage/avatar-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import { FairQueue, QueueFullError } from '../../queue/fair-queue.js';
import { ApiError } from '../errors.js';
import type { JobService } from '../jobs/job-service.js';
import { chooseFace } from './face-choice.js';
import { checkImageFile, ImageCheckError } from '../../inference/image/image-header.js';

/**
 * The queue of face detections: one at a time (the built-in detector has one worker, and a 50-megapixel photo takes
 * it for seconds), each key's photos in order, keys in turn; `maxQueuedPerKey` of one key may wait.
 */
export function faceDetectionQueue(maxQueuedPerKey: number): FairQueue {
  return new FairQueue({ concurrency: 1, maxWaitingPerKey: maxQueuedPerKey });
}

/** The 503 `unavailable` of a service without a face detector (`headers`: extra response headers). */
export function photoAvatarsOff(headers?: Record<string, string>): ApiError {
  return new ApiError(503, 'unavailable', 'photo avatars are off on this service (no face detector is configured)', undefined, headers);
}

/** A portrait received for a new photo avatar. */
export interface ReceivedPhoto {
  blob: BlobRef;
  /**
   * True when this request stored the blob (a multipart upload, a download): the avatar then keeps it, and a refusal
   * deletes it. False for the owner's earlier upload (`imageUrl` naming it): the avatar keeps a copy.
   */
  madeHere: boolean;
  /** The request field it came from, for error details (`body.file`, `body.imageUrl`). */
  field: string;
}

/** The `avatarPrepare` job that makes a photo avatar's assets; it has the avatar's uid. */
export function prepareJobOf(avatar: PhotoAvatar): AvatarPrepareJob {
  const now = new Date().toISOString();
  return {
    kind: 'avatarPrepare',
    uid: avatar.uid,
    owner: avatar.owner,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    input: { photo: avatar.photo, landmarks: avatar.landmarks, fps: avatar.fps, durationSec: 0 },
  };
}

/**
 * Photo avatars (POST/DELETE /v2/avatar): creation finds the face at once (on the injected {@link FaceDetector},
 * off the event loop) so a bad photo is refused before anything exists; the assets are made by an `avatarPrepare`
 * job, through the same store, queue, runner and recovery as every job. An avatar belongs to the key that made it.
 */
export class PhotoAvatarService {
  constructor(
    private readonly store: AvatarStore,
    private readonly blobs: BlobStore,
    private readonly jobs: JobService,
    private readonly detector: FaceDetector | undefined,
    private readonly workDirs: OwnedDirs,
    private readonly logger: Logger,
    /**
     * Where detections wait for the detector (built with {@link faceDetectionQueue}): keys take turns, and a key with
     * `limits.maxQueuedPhotosPerKey` photos waiting gets 429 for one more.
     */
    private readonly detections: FairQueue,
    /**
     * Called after a pending avatar is deleted whose job had ended already (or could not be ended): deletes what a finished preparation made
     * (see `PhotoAvatarSettler.settleDeleted`). Failures are logged; the files then expire or stay for an operator.
     */
    private readonly afterPendingDeleted?: (uid: string) => Promise<void>,
  ) {}

  /** Whether photo avatars can be created here (a face detector is configured). */
  get enabled(): boolean {
    return this.detector !== undefined;
  }

  /**
   * Creates a `pending` photo avatar from a received portrait and schedules its preparation.
   * @throws ApiError 400 `not_image`, `no_face`, `face_too_small`; 429 `too_many_requests` when the owner has too many
   *   photos waiting for the detector; 503 `unavailable` without a face detector.
   */
  async create(owner: string, photo: ReceivedPhoto, name: string): Promise<PhotoAvatar> {
    let adopted = false;
    let workDir: string | undefined;
    try {
      if (!this.detector) throw photoAvatarsOff();
      workDir = await this.workDirs.create('photo');
      const path = await blobToLocalFile(this.blobs, photo.blob.id, workDir, 'photo');
      if (!path) throw new Error(`the received photo ${photo.blob.id} is missing from the blob store`);
      // Refused here, from its header as the decoder reads it, before the detector decodes it (see image-header.ts).
      const header = await checkImageFile(path).catch((error: unknown) => {
        throw error instanceof ImageCheckError ? notAnImage(photo.field, error.message) : error;
      });
      const contentType = `image/${header.format}`;
      const detection = await this.detect(this.detector, owner, path, photo.field);
      const landmarks = chooseFace(detection, photo.field);
      const kept = await this.keep(owner, photo, path, contentType);
      adopted = true;
      const now = new Date().toISOString();
      const avatar: PhotoAvatar = { uid: randomUUID(), owner, name, status: 'pending', photo: kept, landmarks, fps: PHOTO_AVATAR_FPS, createdAt: now, updatedAt: now };
      // The photo keeps a provisional expiry until the record exists: a process that dies in between, or a store
      // write that failed (or timed out after it ran), leaves a photo that expires rather than a leak or an avatar
      // whose photo was deleted. The settle of its preparation clears the expiry again, should this fail.
      await this.store.create(avatar);
      await this.blobs.setExpiry(kept.id, undefined).catch((error: unknown) => {
        this.logger.warn('could not keep the photo of a new avatar yet; its preparation will', { uid: avatar.uid, blob: kept.id, error: String(error) });
      });
      await this.jobs.schedule(prepareJobOf(avatar)).catch((error: unknown) => {
        // The avatar exists: the sweep schedules its preparation once it is older than staleJobMs.
        this.logger.error('could not schedule the preparation of a photo avatar; the sweep will', { uid: avatar.uid, error: String(error) });
      });
      return avatar;
    } finally {
      if (!adopted && photo.madeHere) await this.deleteBlob(photo.blob.id, 'refused photo');
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * Finds the faces in the photo at `path` once it is the owner's turn (see {@link detections}): the detector is
   * called only when the detection can start, so its deadline counts its own work, never the wait.
   * @throws ApiError 429 `too_many_requests` (with `Retry-After`) when the owner has too many photos waiting; 400 `not_image`.
   */
  private async detect(detector: FaceDetector, owner: string, path: string, field: string): Promise<FaceDetection> {
    try {
      return await this.detections.run(owner, () => detector.detect(path));
    } catch (error) {
      if (error instanceof QueueFullError) {
        throw new ApiError(429, 'too_many_requests', `${error.message} for face detection; retry later`, undefined, { 'retry-after': String(error.retryAfterSec) });
      }
      throw error instanceof NotAnImageError ? notAnImage(field, error.message) : error;
    }
  }

  /** The owner's photo avatar, or `undefined`. */
  get(uid: string, owner: string): Promise<PhotoAvatar | undefined> {
    return this.store.get(uid, owner);
  }

  /** A window of the owner's photo avatars, newest first. */
  list(owner: string, offset: number, count: number): Promise<ListResult<PhotoAvatar>> {
    return this.store.list(owner, offset, count);
  }

  /** Whether the owner may make videos with this photo avatar (it exists and its photo could be prepared). */
  async usable(uid: string, owner: string): Promise<boolean> {
    const avatar = await this.store.get(uid, owner);
    return avatar !== undefined && avatar.status !== 'error';
  }

  /**
   * Deletes the owner's photo avatar and its files (photo, idle clip, preview, thumbnail); videos made with it stay.
   * Its preparation, if still running, stops. @throws ApiError 404 when the owner has no such avatar.
   */
  async delete(uid: string, owner: string): Promise<void> {
    if (!(await this.store.get(uid, owner))) throw ApiError.notFound('avatar');
    const deleted = await this.store.delete(uid);
    if (!deleted) throw ApiError.notFound('avatar');
    // The record is gone: from here on nothing may stop the files' deletion (a retry would answer 404).
    if (deleted.status === 'pending') {
      // Its job's end finds no avatar and deletes what the job made (see PhotoAvatarSettler). A job still running
      // that cannot be ended now (job store unreachable) fails without its photo, or finishes and is settled alike.
      const ended = await this.jobs.end(uid, 'canceled', 'the avatar was deleted').catch((error: unknown) => {
        this.logger.warn('could not end the preparation of a deleted photo avatar; it ends without its photo', { uid, error: String(error) });
        return false;
      });
      // A job ended here made nothing; one that had ended already (or could not be ended) may have.
      if (!ended) {
        await this.afterPendingDeleted?.(uid).catch((error: unknown) => {
          this.logger.warn('could not delete what the preparation of a deleted photo avatar made', { uid, error: String(error) });
        });
      }
    }
    const ids = [deleted.photo.id, ...resultBlobIds(deleted.assets)];
    await Promise.all(ids.map((id) => this.deleteBlob(id, 'file of a deleted avatar')));
  }

  /**
   * The photo blob the avatar keeps: the received one, or a copy of the owner's upload; either still with an
   * expiry (the received blob's own, the copy's {@link PROVISIONAL_PHOTO_MS}) until the avatar's record exists.
   */
  private async keep(owner: string, photo: ReceivedPhoto, path: string, contentType: string): Promise<BlobRef> {
    if (!photo.madeHere) return this.blobs.put(createReadStream(path), { owner, contentType, expiresAt: new Date(Date.now() + PROVISIONAL_PHOTO_MS).toISOString() });
    return { id: photo.blob.id, size: photo.blob.size, contentType };
  }

  private async deleteBlob(id: string, what: string): Promise<void> {
    await this.blobs.delete(id).catch((error: unknown) => {
      this.logger.warn(`could not delete the ${what}`, { blob: id, error: String(error) });
    });
  }
}

/** Expiry of a copied photo until its avatar's record is stored (a day, like uploads). */
const PROVISIONAL_PHOTO_MS = 24 * 3_600_000;

function notAnImage(field: string, message: string): ApiError {
  return ApiError.badRequest('not_image', message, [{ field, message: 'send a JPEG, PNG or WebP image' }]);
}
