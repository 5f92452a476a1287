import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobRef } from '../../../src/domain/job.js';
import type { BlobInfo, BlobMeta, BlobStore } from '../../../src/storage/blob-store.js';
import { FsBlobStore } from '../../../src/storage/fs-blob-store.js';

/** The real {@link FsBlobStore} in a temp dir, remembering every blob it stored so tests can see what is left. */
export class TrackingBlobStore implements BlobStore {
  readonly created: string[] = [];
  readonly capabilities: FsBlobStore['capabilities'];

  private constructor(
    readonly dir: string,
    private readonly inner: FsBlobStore,
  ) {
    this.capabilities = inner.capabilities;
  }

  static async create(): Promise<TrackingBlobStore> {
    const dir = await mkdtemp(join(tmpdir(), 'va-blobs-'));
    return new TrackingBlobStore(dir, new FsBlobStore(dir));
  }

  /** Ids of stored blobs that still exist. */
  async live(): Promise<string[]> {
    const present = await Promise.all(this.created.map(async (id) => ((await this.inner.stat(id)) ? id : undefined)));
    return present.filter((id): id is string => id !== undefined);
  }

  /** Every entry under the store's folders (`blobs/`, `tmp/`): catches partial files a failed put left behind. */
  async entriesOnDisk(): Promise<string[]> {
    const list = (sub: string): Promise<string[]> =>
      readdir(join(this.dir, sub)).then((names) => names.map((n) => `${sub}/${n}`), () => []);
    return [...(await list('blobs')), ...(await list('tmp'))];
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }

  async put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef> {
    const ref = await this.inner.put(source, meta, options);
    this.created.push(ref.id);
    return ref;
  }
  async putFile(path: string, meta: BlobMeta, options?: { id?: string }): Promise<BlobRef> {
    const ref = await this.inner.putFile(path, meta, options);
    this.created.push(ref.id);
    return ref;
  }
  stat(id: string): Promise<BlobInfo | undefined> {
    return this.inner.stat(id);
  }
  localPath(id: string): Promise<string | undefined> {
    return this.inner.localPath(id);
  }
  open(id: string, range?: { start: number; end: number }): Promise<Readable | undefined> {
    return this.inner.open(id, range);
  }
  delete(id: string): Promise<void> {
    return this.inner.delete(id);
  }
  setExpiry(id: string, expiresAt: string | undefined): Promise<void> {
    return this.inner.setExpiry(id, expiresAt);
  }
  expired(now: Date): Promise<string[]> {
    return this.inner.expired(now);
  }
}
