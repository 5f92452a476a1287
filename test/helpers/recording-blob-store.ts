import type { Readable } from 'node:stream';
import type { BlobRef } from '../../src/domain/job.js';
import type { BlobMeta } from '../../src/storage/blob-store.js';
import { FsBlobStore } from '../../src/storage/fs-blob-store.js';
import { waitFor } from './checks.js';

/** One write the store saw. */
export interface BlobEvent {
  op: 'put' | 'delete';
  id: string;
  contentType?: string;
}

/** The real {@link FsBlobStore}, logging puts and deletes so a test can wait for one. */
export class RecordingBlobStore extends FsBlobStore {
  readonly events: BlobEvent[] = [];

  override async put(source: Readable, meta: BlobMeta, options?: { maxBytes?: number; id?: string }): Promise<BlobRef> {
    const ref = await super.put(source, meta, options);
    this.events.push({ op: 'put', id: ref.id, contentType: meta.contentType });
    return ref;
  }

  /** A put of a local file (job results) is recorded as a put. */
  override async putFile(path: string, meta: BlobMeta, options?: { id?: string }): Promise<BlobRef> {
    const ref = await super.putFile(path, meta, options);
    this.events.push({ op: 'put', id: ref.id, contentType: meta.contentType });
    return ref;
  }

  override async delete(id: string): Promise<void> {
    await super.delete(id);
    this.events.push({ op: 'delete', id });
  }

  /** Resolves with the first event from index `from` on that matches. */
  next(from: number, match: (event: BlobEvent) => boolean, what: string): Promise<BlobEvent> {
    return waitFor(what, async () => this.events.slice(from).find(match), 10_000, 20);
  }
}
