import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { BlobRef } from '../../domain/job.js';
import type { FaceLandmarks } from '../../domain/avatar/face-landmarks.js';
import type { FaceDetector } from '../../domain/engines.js';
import { NotAnImageError, type FaceDetection } from '../../domain/avatar/photo.js';
import { PHOTO_AVATAR_FPS, type PhotoAvatar } from '../../domain/avatar/photo-avatar.js';
import type { Logger } from '../../domain/logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import { FairQueue, QueueFullError } from '../../queue/fair-queue.js';
import { ApiError } from '../errors.js';
import type { OwnedAvatars, OwnedAvatarView } from './owned-avatars.js';
import { chooseFace } from './face-choice.js';
import { checkImageFile, ImageCheckError } from '../../inference/image/image-header.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

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

/**
 * The creation of photo avatars (POST /v2/avatar): it finds the face at once (on the injected {@link FaceDetector},
 * off the event loop) so a bad photo is refused before anything exists, then hands the avatar to {@link OwnedAvatars}
 * (stored, its assets made by its `avatarPrepare` job). An avatar belongs to the key that made it.
 */
@injectable()
export class PhotoAvatarService {
  constructor(
    @inject(SERVICES.OwnedAvatars) private readonly avatars: OwnedAvatars,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    /** Finds the face; without one (none configured) creation answers 503 `unavailable`. */
    @inject(TOKENS.FaceDetector, { isOptional: true }) private readonly detector: FaceDetector | undefined,
    /**
     * Where detections wait for the detector (built with {@link faceDetectionQueue}): keys take turns, and a key with
     * `limits.maxQueuedPhotosPerKey` photos waiting gets 429 for one more.
     */
    @inject(SERVICES.FaceDetections) private readonly detections: FairQueue,
    @inject(SERVICES.WorkDirs) private readonly workDirs: OwnedDirs,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /** Whether photo avatars can be created here (a face detector is configured). */
  get enabled(): boolean {
    return this.detector !== undefined;
  }

  /**
   * Creates a `pending` photo avatar from a received portrait and schedules its preparation. Aborting `signal` (the
   * request's: its client has gone) while the photo waits for the detector drops it (rejects with its reason).
   * @throws ApiError 400 `not_image`, `no_face`, `face_too_small`; 429 `too_many_requests` when the owner has too many
   *   photos waiting for the detector; 503 `unavailable` without a face detector.
   */
  async create(owner: string, photo: ReceivedPhoto, name: string, signal?: AbortSignal): Promise<OwnedAvatarView> {
    let adopted = false;
    let workDir: string | undefined;
    try {
      if (!this.detector) throw photoAvatarsOff();
      await this.avatars.confirmReachable();
      workDir = await this.workDirs.create('photo');
      const path = await blobToLocalFile(this.blobs, photo.blob.id, workDir, 'photo');
      if (!path) throw new Error(`the received photo ${photo.blob.id} is missing from the blob store`);
      // Refused here, from its header as the decoder reads it, before the detector decodes it (see image-header.ts).
      const header = await checkImageFile(path).catch((error: unknown) => {
        throw error instanceof ImageCheckError ? notAnImage(photo.field, error.message) : error;
      });
      const contentType = `image/${header.format}`;
      const detection = await this.detect(this.detector, owner, path, photo.field, signal);
      const landmarks = chooseFace(detection, photo.field);
      const kept = await this.keep(owner, photo, path, contentType);
      adopted = true;
      const now = new Date().toISOString();
      const avatar: PhotoAvatar = { uid: randomUUID(), owner, name, asset: 'photo', photo: kept, landmarks, fps: PHOTO_AVATAR_FPS, createdAt: now, updatedAt: now };
      // The photo keeps a provisional expiry until the record exists: a process that dies in between, or a store
      // write that failed (or timed out after it ran), leaves a photo that expires rather than a leak or an avatar
      // whose photo was deleted. Creation clears it once the record exists (and the preparation does, should that fail).
      return await this.avatars.create(avatar);
    } finally {
      if (!adopted && photo.madeHere) await this.deleteBlob(photo.blob.id, 'refused photo');
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * The face of a frame of a clip (a video avatar's check at creation): the photo avatars' detection, in turn, and
   * their choice of face; `signal` as for {@link create}.
   * @throws ApiError 400 `no_face`, `face_too_small`; 429 `too_many_requests`; 503 `unavailable` without a detector.
   */
  async findFace(owner: string, imagePath: string, field: string, signal?: AbortSignal): Promise<FaceLandmarks> {
    if (!this.detector) throw photoAvatarsOff();
    return chooseFace(await this.detect(this.detector, owner, imagePath, field, signal), field, 'clip');
  }

  /**
   * Finds the faces in the photo at `path` once it is the owner's turn (see {@link detections}): the detector is
   * called only when the detection can start, so its deadline counts its own work, never the wait; a detection whose
   * `signal` aborts while it waits never starts.
   * @throws ApiError 429 `too_many_requests` (with `Retry-After`) when the owner has too many photos waiting; 400 `not_image`.
   */
  private async detect(detector: FaceDetector, owner: string, path: string, field: string, signal?: AbortSignal): Promise<FaceDetection> {
    try {
      return await this.detections.run(owner, () => detector.detect(path), signal);
    } catch (error) {
      if (error instanceof QueueFullError) {
        throw new ApiError(429, 'too_many_requests', `${error.message} for face detection; retry later`, undefined, { 'retry-after': String(error.retryAfterSec) });
      }
      throw error instanceof NotAnImageError ? notAnImage(field, error.message) : error;
    }
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
