import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobRef } from '../../domain/job.js';
import { BlobExistsError, type BlobInfo, type BlobStore } from '../../storage/blob-store.js';
import type { OwnedDirs } from '../../storage/owned-dirs.js';
import type { AvatarAssetRenderer } from '../../domain/engines.js';
import type { AvatarDefinition } from '../../domain/avatar/definition.js';
import type { Logger } from '../../domain/logger.js';
import { avatarUid, definitionFingerprint } from './avatar-uid.js';

/** Values of `thumbnailGenerationStatus`: `pending` until the assets exist, then `completed` (or `error`). */
export type ThumbnailStatus = 'pending' | 'completed' | 'error';

/** One catalogue entry. */
export interface AvatarEntry {
  uid: string;
  name: string;
  definition: AvatarDefinition;
  thumbnailGenerationStatus: ThumbnailStatus;
  assets: { video?: BlobRef; preview?: BlobRef; thumbnail?: BlobRef };
  createdAt: string;
  updatedAt: string;
}

type AssetName = keyof AvatarEntry['assets'];
const ASSETS: { name: AssetName; contentType: string; file: string }[] = [
  { name: 'thumbnail', contentType: 'image/png', file: 'thumbnail.png' },
  { name: 'preview', contentType: 'image/png', file: 'preview.png' },
  { name: 'video', contentType: 'video/mp4', file: 'idle.mp4' },
];

/**
 * The avatar catalogue: definitions in a stable order, with assets (idle-loop mp4, preview, thumbnail)
 * generated in the background on first start and found again in the blob store after a restart
 * (blob ids derive from the avatar uid and the definition's fingerprint). Several processes may share
 * the blob store: when two render the same asset at once, the first stored wins and the other uses it.
 */
export class AvatarCatalogue {
  private readonly entries: AvatarEntry[];
  private readonly byUid = new Map<string, AvatarEntry>();
  private generation?: Promise<void>;
  private readonly abort = new AbortController();
  private watch?: NodeJS.Timeout;

  constructor(
    definitions: readonly AvatarDefinition[],
    private readonly blobs: BlobStore,
    private readonly renderer: AvatarAssetRenderer | undefined,
    private readonly logger: Logger,
    private readonly workDirs: OwnedDirs,
  ) {
    const now = new Date().toISOString();
    this.entries = definitions.map((definition) => ({
      uid: avatarUid(definition.id),
      name: definition.name,
      definition,
      thumbnailGenerationStatus: 'pending',
      assets: {},
      createdAt: now,
      updatedAt: now,
    }));
    for (const entry of this.entries) this.byUid.set(entry.uid, entry);
  }

  /** Starts generating missing assets in the background; resolves when all are done. Idempotent. */
  start(): Promise<void> {
    this.generation ??= this.generateAll();
    return this.generation;
  }

  /**
   * For a process that renders no assets (role `api`): looks in the blob store every `intervalMs` for the
   * assets another process (a worker) stores, until every avatar has all of them.
   */
  watchForAssets(intervalMs: number): void {
    if (this.renderer || this.watch) return;
    this.watch = setInterval(() => {
      if (this.entries.every((entry) => ASSETS.every((asset) => entry.assets[asset.name]))) {
        clearInterval(this.watch);
        return;
      }
      if (!this.generation) return;
      this.generation = this.generation.then(() => this.generateAll());
    }, intervalMs);
    this.watch.unref();
  }

  /**
   * The names of the avatars whose assets this process is still rendering, in definition order: those missing an
   * asset whose rendering has not failed (a failure is logged and sets `thumbnailGenerationStatus` to `error`, so
   * a broken avatar does not keep readiness down). Empty in a process that renders no assets (role `api`, or
   * `backends.avatarRenderer: false`): it has nothing to wait for.
   */
  stillRendering(): string[] {
    if (!this.renderer) return [];
    return this.entries
      .filter((entry) => entry.thumbnailGenerationStatus !== 'error' && !ASSETS.every((asset) => entry.assets[asset.name]))
      .map((entry) => entry.name);
  }

  /** One page of the catalogue, in definition order. */
  list(page: number, perPage: number): { total: number; items: AvatarEntry[] } {
    const start = (page - 1) * perPage;
    return { total: this.entries.length, items: this.entries.slice(start, start + perPage) };
  }

  get(uid: string): AvatarEntry | undefined {
    return this.byUid.get(uid);
  }

  /** The definition behind an avatar uid (used by the lip-sync worker). */
  definition(uid: string): AvatarDefinition | undefined {
    return this.byUid.get(uid)?.definition;
  }

  /** Stops background generation. */
  async close(): Promise<void> {
    this.abort.abort();
    clearInterval(this.watch);
    // generateAll logs each avatar's failure itself; anything else escaping it is logged here.
    await this.generation?.catch((error: unknown) => this.logger.error('avatar asset generation failed', { error: String(error) }));
  }

  private async generateAll(): Promise<void> {
    for (const entry of this.entries) {
      if (this.abort.signal.aborted) return;
      try {
        await this.ensureAssets(entry);
      } catch (error) {
        entry.thumbnailGenerationStatus = 'error';
        this.logger.error('avatar asset generation failed', { avatar: entry.definition.id, error: String(error) });
      }
    }
  }

  private async ensureAssets(entry: AvatarEntry): Promise<void> {
    const prefix = `avatar-${entry.uid}-${definitionFingerprint(entry.definition)}`;
    let workDir: string | undefined;
    try {
      for (const asset of ASSETS) {
        const id = `${prefix}-${asset.name}`;
        const existing = await this.blobs.stat(id);
        if (existing) {
          entry.assets[asset.name] = existing;
          // The thumbnail is made first, so its time is the avatar's creation; the newest asset its update.
          if (asset.name === 'thumbnail') entry.createdAt = existing.createdAt;
          if (existing.createdAt > entry.updatedAt || asset.name === 'thumbnail') entry.updatedAt = existing.createdAt;
        }
        if (entry.assets.thumbnail) entry.thumbnailGenerationStatus = 'completed';
        if (existing) continue;
        if (!this.renderer || this.abort.signal.aborted) return;
        workDir ??= await this.workDirs.create('avatar');
        const file = join(workDir, asset.file);
        if (asset.name === 'thumbnail') await this.renderer.renderThumbnail(entry.definition, file);
        else if (asset.name === 'preview') await this.renderer.renderPreview(entry.definition, file);
        else await this.renderer.renderIdleVideo(entry.definition, file, this.abort.signal);
        entry.assets[asset.name] = await this.store(id, file, asset.contentType);
        entry.updatedAt = new Date().toISOString();
        if (asset.name === 'thumbnail') entry.thumbnailGenerationStatus = 'completed';
      }
    } finally {
      if (workDir) {
        await rm(workDir, { recursive: true, force: true }).catch((error: unknown) => {
          this.logger.warn('could not remove an avatar work folder; the next start will', { workDir, error: String(error) });
        });
      }
    }
  }

  /** Stores a rendered asset under its fixed id; when another process stored it first, takes that one. */
  private async store(id: string, file: string, contentType: string): Promise<BlobRef> {
    try {
      return await this.blobs.put(createReadStream(file), { owner: 'system', contentType }, { id });
    } catch (error) {
      if (!(error instanceof BlobExistsError)) throw error;
      const winner: BlobInfo | undefined = await this.blobs.stat(id);
      if (!winner) throw error;
      return { id: winner.id, contentType: winner.contentType, size: winner.size };
    }
  }
}
