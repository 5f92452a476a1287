import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobRef } from '../../domain/job.js';
import type { VideoAvatar } from '../../domain/avatar/video-avatar.js';
import type { Logger } from '../../domain/logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { blobToLocalFile } from '../../storage/blob-files.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { MediaBinaries } from '../../inference/media/binaries.js';
import { packetDurationSec, writeClipStill } from '../../inference/video/clip-check.js';
import { clipOfProbe, normalisedGeometry, probeClip, type ClipGeometry } from '../../inference/video/clip-probe.js';
import type { MediaProbe } from '../../inference/media/probe.js';
import type { FairQueue } from '../../queue/fair-queue.js';
import { checksFull } from '../input/media-checks.js';
import { asVideoAvatarError } from '../../inference/video/errors.js';
import { ApiError } from '../errors.js';
import type { ResolvedOptions } from '../options.js';
import type { OwnedAvatars, OwnedAvatarView } from './owned-avatars.js';
import type { PhotoAvatarService } from './photo-avatar-service.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** A clip received for a new video avatar (see `ReceivedPhoto`). */
export interface ReceivedClip {
  blob: BlobRef;
  /** True when this request stored the blob: the avatar keeps it, a refusal deletes it. */
  madeHere: boolean;
  /** The request field it came from (`body.file`, `body.videoUrl`). */
  field: string;
  /** What the input check's ffprobe found, where one ran (a `videoUrl`): the clip is then not probed again. */
  probe?: MediaProbe;
}

/** Expiry of a copied clip until its avatar's record is stored (a day, like uploads). */
const PROVISIONAL_CLIP_MS = 24 * 3_600_000;

/** How far into the clip its face is looked at before it is accepted (the preparation looks at every frame). */
const LOOK_AT = 0.35;

/**
 * The creation of video avatars (POST /v2/avatar with a clip): the clip is checked at once (a readable video, its
 * length from its packets, a face large enough in one frame) so a clip that cannot be one is refused with a 400
 * before anything exists; then the avatar is handed to {@link OwnedAvatars} and its `avatarPrepare` job prepares the
 * whole clip in the background (a face missing in too much of it ends the avatar in `error`, `face_lost`).
 */
@injectable()
export class VideoAvatarService {
  constructor(
    @inject(SERVICES.OwnedAvatars) private readonly avatars: OwnedAvatars,
    /** Finds the face in one frame (the photo avatars' detector and queue). */
    @inject(SERVICES.PhotoAvatars) private readonly faces: PhotoAvatarService,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(TOKENS.MediaBinaries) private readonly binaries: MediaBinaries,
    @inject(TOKENS.Options) private readonly options: ResolvedOptions,
    @inject(SERVICES.WorkDirs) private readonly workDirs: OwnedDirs,
    @inject(TOKENS.Logger) private readonly logger: Logger,
    /** Where the clip's checks wait for the media command children, keys in turn (see `mediaCheckQueue`). */
    @inject(SERVICES.MediaChecks) private readonly checks: FairQueue,
  ) {}

  /** Whether video avatars can be created here (a face detector looks at the clip first). */
  get enabled(): boolean {
    return this.faces.enabled;
  }

  /**
   * Creates a `pending` video avatar from a received clip and schedules its preparation. Aborting `signal` (the
   * request's: its client has gone) while the clip's checks or its frame's face detection wait for their turn drops
   * them (rejects with its reason).
   * @throws ApiError 400 `not_video`, `too_short`, `too_long`, `no_face`, `face_too_small`; 429 `too_many_requests`
   *   when the owner has too many faces waiting for the detector; 503 `unavailable` without a face detector.
   */
  async create(owner: string, clip: ReceivedClip, name: string, signal?: AbortSignal): Promise<OwnedAvatarView> {
    let adopted = false;
    let workDir: string | undefined;
    try {
      if (!this.enabled) throw videoAvatarsOff();
      await this.avatars.confirmReachable();
      workDir = await this.workDirs.create('video');
      const path = await blobToLocalFile(this.blobs, clip.blob.id, workDir, 'clip');
      if (!path) throw new Error(`the received clip ${clip.blob.id} is missing from the blob store`);
      const still = join(workDir, 'still.png');
      const geometry = await this.checks.run(owner, () => this.checkClip(path, still, clip), signal).catch((error: unknown) => {
        throw checksFull(error);
      });
      await this.faces.findFace(owner, still, clip.field, signal);
      // The received blob, or a copy of the owner's upload (which expires with the uploads), with a provisional expiry
      // until the avatar's record exists (creation clears it).
      const kept = clip.madeHere
        ? clip.blob
        : await this.blobs.put(createReadStream(path), { owner, contentType: clip.blob.contentType, expiresAt: new Date(Date.now() + PROVISIONAL_CLIP_MS).toISOString() });
      adopted = true;
      const now = new Date().toISOString();
      const avatar: VideoAvatar = { uid: randomUUID(), owner, name, asset: 'video', clip: kept, ...geometry, createdAt: now, updatedAt: now };
      return await this.avatars.create(avatar);
    } finally {
      if (!adopted && clip.madeHere) {
        await this.blobs.delete(clip.blob.id).catch((error: unknown) => this.logger.warn('could not delete the refused clip', { blob: clip.blob.id, error: String(error) }));
      }
      if (workDir) await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * The clip's own checks (a readable video, from the input check's probe where it ran one, else probed here; its
   * length from its packets) and its frame at {@link LOOK_AT} written to `still`; resolves with the size and rate it
   * is kept at.
   * @throws ApiError 400 `not_video`, `too_short`, `too_long`.
   */
  private async checkClip(path: string, still: string, { field, probe: probed }: ReceivedClip): Promise<ClipGeometry> {
    const probe = await (probed ? Promise.resolve(probed).then(clipOfProbe) : probeClip(path, this.binaries)).catch((error: unknown) => {
      throw refusal(error, field);
    });
    const geometry = normalisedGeometry(probe);
    const { minAvatarVideoSec: min, maxAvatarVideoSec: max } = this.options.limits;
    const seconds = await packetDurationSec(path, this.binaries);
    if (seconds < min) throw refused('too_short', `the clip lasts ${seconds.toFixed(1)} s; a video avatar's clip lasts at least ${min} s (\`limits.minAvatarVideoSec\`; 30 s to 2 minutes are best)`, field);
    if (seconds > max + 0.5) throw refused('too_long', `the clip lasts ${seconds.toFixed(1)} s; a video avatar's clip lasts at most ${max} s (\`limits.maxAvatarVideoSec\`)`, field);
    await writeClipStill(path, seconds * LOOK_AT, geometry, still, this.binaries);
    return geometry;
  }
}

/** The 503 `unavailable` of a service without a face detector. */
export function videoAvatarsOff(headers?: Record<string, string>): ApiError {
  return new ApiError(503, 'unavailable', 'video avatars are off on this service (no face detector is configured)', undefined, headers);
}

function refused(code: string, message: string, field: string): ApiError {
  return ApiError.badRequest(code, message, [{ field, message }]);
}

/** A clip the probe refused as a 400; any other error as it is. */
function refusal(error: unknown, field: string): unknown {
  const clipError = asVideoAvatarError(error);
  return clipError ? refused(clipError.code, clipError.message, field) : error;
}
