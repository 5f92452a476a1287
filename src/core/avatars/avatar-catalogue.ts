import { setTimeout as delay } from 'node:timers/promises';
import type { BlobRef } from '../../domain/job.js';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { PhotoAvatarAssets } from '../../domain/avatar/photo-avatar.js';
import type { Logger } from '../../domain/logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { JobStore } from '../../storage/job-store.js';
import type { JobScheduling } from '../jobs/job-ports.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';
import { isFinal } from '../../domain/state-machine.js';
import { isStoreUnavailable } from '../../storage/store-unavailable-error.js';
import { avatarPrepareJob, preparedAssetIds, type AvatarPrepareJob } from '../kinds/avatar-prepare/index.js';
import { avatarUid, definitionFingerprint } from './avatar-uid.js';
import { stateOfPreparation, type AvatarState } from './avatar-state.js';

/** The owner of catalogue avatars' `avatarPrepare` jobs (no API key hashes to it). */
export const CATALOGUE_OWNER = 'catalogue';

/** One catalogue entry: a definition, and the `avatarPrepare` job that makes its assets. */
export interface AvatarEntry {
  uid: string;
  name: string;
  definition: AvatarDefinition;
  /** The uid of its `avatarPrepare` job, derived from the definition, so a changed definition gets new assets. */
  jobUid: string;
}

/** A catalogue avatar's state, with its timestamps: its creation and last change (from its assets once they exist). */
export interface CatalogueState extends AvatarState {
  createdAt: string;
}

/** Settings of an {@link AvatarCatalogue}. */
export interface CatalogueSettings {
  /** Whether this process makes assets (it runs engines and has an avatar renderer): it schedules the preparations and waits for them in `start`. */
  makesAssets: boolean;
}

/** How often {@link AvatarCatalogue.start} looks whether every avatar's preparation has ended. */
const READY_POLL_MS = 100;

/**
 * The avatar catalogue: definitions in a stable order, each with the `avatarPrepare` job that makes its assets
 * (idle-loop mp4, preview, thumbnail) like any job (queue, runner, recovery): the avatar's state is its job's. The
 * job's uid and its assets' blob ids derive from the avatar uid and the definition's fingerprint, so every process
 * sharing the stores finds them, and assets rendered once serve every later start.
 *
 * A process that makes assets (it runs engines and has an avatar renderer) schedules the jobs at its start (and at
 * each sweep, for one whose store was down) and replaces one that failed, so a start tries again; a process that
 * makes none (role `api`, `backends.avatarRenderer: false`) only reads their state.
 */
@injectable()
export class AvatarCatalogue {
  private readonly entries: AvatarEntry[];
  private readonly byUid = new Map<string, AvatarEntry>();
  /** States of completed preparations (they no longer change), by avatar uid. */
  private readonly done = new Map<string, CatalogueState>();
  private readonly constructedAt = new Date().toISOString();
  private scheduled?: Promise<void>;
  /** Avatars whose failed preparation this process has logged. */
  private readonly failuresLogged = new Set<string>();
  private readonly stopping = new AbortController();

  private readonly makesAssets: boolean;

  constructor(
    @inject(TOKENS.AvatarDefinitions) definitions: readonly AvatarDefinition[],
    /** Where the preparations are read and replaced. */
    @inject(SERVICES.JobStore) private readonly store: JobStore,
    /** Stores and queues the preparations. */
    @inject(SERVICES.JobScheduling) private readonly jobs: JobScheduling,
    @inject(TOKENS.BlobStore) private readonly blobs: BlobStore,
    @inject(SERVICES.CatalogueSettings) settings: CatalogueSettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {
    this.makesAssets = settings.makesAssets;
    this.entries = definitions.map((definition) => {
      const uid = avatarUid(definition.id);
      return { uid, name: definition.name, definition, jobUid: avatarUid(`${definition.id}@${definitionFingerprint(definition)}`) };
    });
    for (const entry of this.entries) this.byUid.set(entry.uid, entry);
  }

  /**
   * Schedules the preparations (a process that makes assets; once) and resolves when each has ended, or at
   * {@link close}; while the job store is unreachable it keeps waiting. A process that makes no assets resolves at
   * once: it has nothing to wait for. Never rejects.
   */
  async start(): Promise<void> {
    if (!this.makesAssets) return;
    this.scheduled ??= this.schedule(true);
    await this.scheduled;
    while (!this.stopping.signal.aborted && (await this.stillRendering().catch(() => ['(job store unreachable)'])).length > 0) {
      await delay(READY_POLL_MS, undefined, { signal: this.stopping.signal }).catch(() => undefined);
    }
  }

  /** Schedules the preparations that have no job (their store was down at start); run by each sweep. */
  async scheduleMissing(): Promise<void> {
    if (this.makesAssets) await this.schedule(false);
  }

  /**
   * The names of the avatars whose assets this process still waits for, in definition order: those whose
   * preparation has not ended (one that failed is not waited for: its failure is logged). Empty in a process that
   * makes no assets.
   */
  async stillRendering(): Promise<string[]> {
    if (!this.makesAssets) return [];
    const ended = await Promise.all(
      this.entries.map(async (entry) => {
        if (this.done.has(entry.uid)) return true;
        const job = await this.preparation(entry);
        return job !== undefined && isFinal(job.status);
      }),
    );
    return this.entries.filter((_, i) => !ended[i]).map((entry) => entry.name);
  }

  /** One page of the catalogue, in definition order. */
  list(page: number, perPage: number): { total: number; items: AvatarEntry[] } {
    const start = (page - 1) * perPage;
    return { total: this.entries.length, items: this.entries.slice(start, start + perPage) };
  }

  get(uid: string): AvatarEntry | undefined {
    return this.byUid.get(uid);
  }

  /** Whether `jobUid` prepares the assets of an avatar of this catalogue (a changed definition's job does not). */
  hasPreparation(jobUid: string): boolean {
    return this.entries.some((entry) => entry.jobUid === jobUid);
  }

  /** The definition behind an avatar uid. */
  definition(uid: string): AvatarDefinition | undefined {
    return this.byUid.get(uid)?.definition;
  }

  /**
   * The avatar's state: its preparation's, with the creation and change times of its assets once they exist. Without
   * a preparation record (a job store that forgot it: memory, restarted) assets stored and kept under its ids are
   * its state, as its next start records.
   */
  async state(entry: AvatarEntry): Promise<CatalogueState> {
    const cached = this.done.get(entry.uid);
    if (cached) return cached;
    const job = await this.preparation(entry);
    const stored = job ? undefined : await this.storedAssets(entry);
    const state = stored ? { status: 'completed' as const, assets: stored, updatedAt: this.constructedAt } : stateOfPreparation(job, this.constructedAt);
    if (state.status !== 'completed' || !state.assets) return { ...state, createdAt: this.constructedAt };
    const completed = { ...state, ...(await this.assetTimes(state.assets)) };
    this.done.set(entry.uid, completed);
    return completed;
  }

  /** Stops waiting in {@link start}. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.scheduled;
  }

  /** The entry's `avatarPrepare` job (`undefined`: none yet); a failed one is logged once per process. */
  private async preparation(entry: AvatarEntry): Promise<AvatarPrepareJob | undefined> {
    const job = (await this.store.get(entry.jobUid)) as AvatarPrepareJob | undefined;
    if (job?.status === 'error' && !this.failuresLogged.has(entry.uid)) {
      this.failuresLogged.add(entry.uid);
      this.logger.error('avatar asset generation failed', { avatar: entry.definition.id, job: entry.jobUid, code: job.failure?.code, error: job.failure?.message });
    }
    return job;
  }

  /**
   * Schedules the preparation of every avatar that has none; with `retry`, also replaces one that failed (a start
   * tries again). One avatar's failure is logged and the others go on; two processes scheduling one job at once
   * store it once.
   */
  private async schedule(retry: boolean): Promise<void> {
    for (const entry of this.entries) {
      if (this.stopping.signal.aborted) return;
      try {
        const job = await this.store.get(entry.jobUid);
        if (job && !(retry && job.status === 'error')) continue;
        if (job) await this.store.delete(entry.jobUid);
        const preparation = this.preparationJob(entry);
        // Assets a completed run kept (their job record was in a store that forgot it) are recorded, not made again.
        const stored = job ? undefined : await this.storedAssets(entry);
        if (stored) await this.store.create({ ...preparation, status: 'completed', result: stored, completedAt: preparation.createdAt });
        else await this.jobs.schedule(preparation);
      } catch (error) {
        if (isStoreUnavailable(error)) {
          // The store says once that it is unreachable; each sweep adds only a debug line. The other avatars would
          // wait as long for it (a hanging Redis: `commandMs` each), so the next sweep tries them all again.
          this.logger.debug('could not schedule the assets of the catalogue avatars; the next sweep tries again', { avatar: entry.definition.id, error: String(error) });
          return;
        }
        if (await this.store.get(entry.jobUid).catch(() => undefined)) continue; // another process stored it first
        this.logger.error('could not schedule the assets of a catalogue avatar; the next sweep tries again', { avatar: entry.definition.id, error: String(error) });
      }
    }
  }

  /** The entry's `avatarPrepare` job as scheduled: its uid and its assets' ids derive from the avatar and its definition. */
  private preparationJob(entry: AvatarEntry): AvatarPrepareJob {
    const prefix = `avatar-${entry.uid}-${definitionFingerprint(entry.definition)}`;
    const source = { asset: 'catalogue' as const, definition: entry.definition };
    return avatarPrepareJob({ uid: entry.jobUid, owner: CATALOGUE_OWNER, source, assetPrefix: prefix });
  }

  /**
   * The entry's three assets when each is stored under its fixed id and kept (no expiry: a run that completed, or a
   * version that rendered them without jobs); `undefined` otherwise (a run that did not complete leaves them expiring).
   */
  private async storedAssets(entry: AvatarEntry): Promise<PhotoAvatarAssets | undefined> {
    const ids = preparedAssetIds(this.preparationJob(entry));
    const names = ['thumbnail', 'preview', 'video'] as const;
    const stats = await Promise.all(names.map((name) => this.blobs.stat(ids[name])));
    if (stats.some((stat) => !stat || stat.meta.expiresAt !== undefined)) return undefined;
    const ref = (i: number): BlobRef => ({ id: stats[i]!.id, contentType: stats[i]!.contentType, size: stats[i]!.size });
    return { thumbnail: ref(0), preview: ref(1), video: ref(2) };
  }

  /** The thumbnail's creation (made first: the avatar's creation) and the newest asset's (its last change). */
  private async assetTimes(assets: PhotoAvatarAssets): Promise<{ createdAt: string; updatedAt: string }> {
    const stats = await Promise.all((['thumbnail', 'preview', 'video'] as const).map((name) => this.blobs.stat((assets[name] as BlobRef).id)));
    const times = stats.map((stat) => stat?.createdAt ?? this.constructedAt);
    return { createdAt: times[0]!, updatedAt: times.reduce((a, b) => (b > a ? b : a)) };
  }
}
