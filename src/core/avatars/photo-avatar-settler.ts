import { resultBlobIds, type Job } from '../../domain/job.js';
import type { AvatarPrepareJob } from '../kinds/avatar-prepare/record.js';
import type { Logger } from '../../domain/logger.js';
import { isFinal } from '../../domain/state-machine.js';
import type { AvatarOutcome, AvatarStore } from '../../storage/avatar-store.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { JobStore } from '../../storage/job-store.js';
import type { JobService } from '../jobs/job-service.js';
import { prepareJobOf } from './photo-avatar-service.js';

/**
 * Carries the end of an `avatarPrepare` job over to its photo avatar: `completed` takes the assets (their expiry
 * cleared: they live as long as the avatar), `error` keeps the reason. The job runner calls {@link settle} when it
 * ends such a job; {@link sweep} (each sweeper pass) catches what no runner told (a process that died between the
 * two writes) and schedules the preparation of an avatar whose job was never stored, so no avatar stays `pending`.
 */
export class PhotoAvatarSettler {
  constructor(
    private readonly store: AvatarStore,
    private readonly jobStore: JobStore,
    private readonly blobs: BlobStore,
    private readonly jobs: JobService,
    /** An avatar without a job this long after its creation gets one. */
    private readonly staleMs: number,
    private readonly logger: Logger,
  ) {}

  /** Settles the avatar of an ended `avatarPrepare` job; assets of an avatar that is gone (deleted) are deleted. */
  async settle(ended: Job): Promise<void> {
    if (ended.kind !== 'avatarPrepare' || !isFinal(ended.status)) return;
    const job = ended as AvatarPrepareJob;
    const assets = resultBlobIds(job.result);
    const avatar = await this.store.get(job.uid);
    let current = avatar;
    if (avatar?.status === 'pending') {
      const outcome: AvatarOutcome =
        job.status === 'completed' && job.result
          ? { status: 'completed', assets: job.result }
          : { status: 'error', failure: job.failure ?? { code: 'processing_failed', message: 'the avatar could not be prepared' } };
      // The photo too: its creation clears its provisional expiry, unless that write failed or its process died.
      const keep = outcome.status === 'completed' ? [avatar.photo.id, ...assets] : [avatar.photo.id];
      await Promise.all(keep.map((id) => this.blobs.setExpiry(id, undefined)));
      if (await this.store.settle(job.uid, outcome)) {
        this.logger.info('photo avatar prepared', { uid: job.uid, status: outcome.status });
        return;
      }
      // Settled or deleted meanwhile: what it holds now decides.
      current = await this.store.get(job.uid);
    }
    const kept = new Set(current?.assets ? resultBlobIds(current.assets) : []);
    await Promise.all(
      assets
        .filter((id) => !kept.has(id))
        .map((id) =>
          this.blobs.delete(id).catch((error: unknown) => {
            this.logger.warn('could not delete an asset of a deleted avatar', { uid: job.uid, blob: id, error: String(error) });
          }),
        ),
    );
  }

  /**
   * After a pending avatar was deleted: if its preparation already ended, settles it now (no avatar: its assets are
   * deleted). Covers a job whose end was seen but whose avatar was never settled (store outage, crash), whose assets
   * lost their expiry already; a job still running is settled when it ends.
   */
  async settleDeleted(uid: string): Promise<void> {
    const job = await this.jobStore.get(uid);
    if (job && isFinal(job.status)) await this.settle(job);
  }

  /** One pass over the pending avatars (run by the sweeper). One avatar's failure is logged and the pass goes on. */
  async sweep(now = Date.now()): Promise<{ settled: number; scheduled: number; failed: number }> {
    let settled = 0;
    let scheduled = 0;
    let failed = 0;
    for (const uid of await this.store.pendingUids()) {
      try {
        const job = await this.jobStore.get(uid);
        if (job && isFinal(job.status)) {
          await this.settle(job);
          settled++;
        } else if (!job) {
          const avatar = await this.store.get(uid);
          if (!avatar || avatar.status !== 'pending' || now - Date.parse(avatar.createdAt) < this.staleMs) continue;
          await this.jobs.schedule(prepareJobOf(avatar));
          scheduled++;
        }
      } catch (error) {
        // e.g. another process's sweep scheduled the same job a moment before: the next pass sees it.
        failed++;
        this.logger.warn('could not recover a photo avatar; the next sweep tries again', { uid, error: String(error) });
      }
    }
    if (settled || scheduled || failed) this.logger.info('recovered photo avatars', { settled, scheduled, failed });
    return { settled, scheduled, failed };
  }
}
