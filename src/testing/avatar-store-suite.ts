import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { PhotoAvatar } from '../domain/avatar/photo-avatar.js';
import { FACE_LANDMARK_COUNT, type FaceLandmarks } from '../domain/avatar/face-landmarks.js';
import type { AvatarStore } from '../storage/avatar-store.js';
import type { SuiteRunner } from './suite-runner.js';

/** Options of {@link avatarStoreSuite}. */
export interface AvatarStoreSuiteOptions extends SuiteRunner {
  /** Makes a fresh, empty store (stores on a shared backend need their own namespace). */
  create(): Promise<AvatarStore>;
  /** Releases a store made by `create` (and deletes its data on a shared backend). Default: `store.close()`. */
  destroy?(store: AvatarStore): Promise<void>;
}

/** Landmarks of a face in a 640×480 image, with coordinates that do not round-trip as short decimals. */
export function makeLandmarks(): FaceLandmarks {
  const points = Array.from({ length: FACE_LANDMARK_COUNT }, (_, i): [number, number] => [200 + i * 3.141592653589793, 150 + i / 7]);
  return { imageWidth: 640, imageHeight: 480, box: { x: 190.25, y: 140.5, width: 260.125, height: 300.0625 }, points, score: 0.987654321, model: 'suite' };
}

/** A photo avatar of `owner`, created at `createdAt` (a fresh uid; blob refs that need not exist). */
export function makePhotoAvatar(fields: { owner?: string; createdAt?: string; uid?: string; name?: string } = {}): PhotoAvatar {
  const createdAt = fields.createdAt ?? new Date().toISOString();
  return {
    uid: fields.uid ?? randomUUID(),
    owner: fields.owner ?? 'owner-a',
    name: fields.name ?? 'Portrait',
    asset: 'photo',
    photo: { id: `photo-${randomUUID()}`, contentType: 'image/jpeg', size: 12345 },
    landmarks: makeLandmarks(),
    fps: 25,
    createdAt,
    updatedAt: createdAt,
  };
}

const at = (minute: number) => new Date(Date.UTC(2025, 5, 1, 12, minute)).toISOString();

/**
 * The contract every {@link AvatarStore} keeps, for node:test, vitest or mocha: records round-trip exactly and are
 * scoped to their owner, a second create is refused, listings are newest first with totals and windows, and `delete`
 * removes the record from every index.
 */
export function avatarStoreSuite(name: string, options: AvatarStoreSuiteOptions): void {
  const { describe, it } = options;
  const withStore = async (body: (store: AvatarStore) => Promise<void>) => {
    const store = await options.create();
    try {
      await body(store);
    } finally {
      await (options.destroy ? options.destroy(store) : store.close());
    }
  };

  describe(`AvatarStore contract: ${name}`, () => {
    it('returns a created avatar exactly (landmarks included), only to its owner, and refuses a second create', () =>
      withStore(async (store) => {
        const avatar = makePhotoAvatar({ owner: 'alice' });
        await store.create(avatar);
        assert.deepEqual(await store.get(avatar.uid), avatar);
        assert.deepEqual(await store.get(avatar.uid, 'alice'), avatar);
        assert.equal(await store.get(avatar.uid, 'bob'), undefined);
        assert.equal(await store.get(randomUUID()), undefined);
        await assert.rejects(store.create({ ...avatar, name: 'other' }));
        assert.equal((await store.get(avatar.uid))?.name, avatar.name);
      }));

    it("lists an owner's avatars newest first, in windows, with the owner's total", () =>
      withStore(async (store) => {
        const mine = [3, 1, 4, 2].map((m) => makePhotoAvatar({ owner: 'alice', createdAt: at(m) }));
        for (const avatar of mine) await store.create(avatar);
        await store.create(makePhotoAvatar({ owner: 'bob', createdAt: at(9) }));
        const order = [...mine].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((a) => a.uid);
        const all = await store.list('alice', 0, 10);
        assert.equal(all.total, 4);
        assert.deepEqual(all.items.map((a) => a.uid), order);
        const window = await store.list('alice', 1, 2);
        assert.equal(window.total, 4);
        assert.deepEqual(window.items.map((a) => a.uid), order.slice(1, 3));
        assert.deepEqual((await store.list('alice', 4, 2)).items, []);
        assert.equal((await store.list('carol', 0, 10)).total, 0);
        await assert.rejects(store.list('alice', -1, 2), RangeError);
      }));

    it('deletes an avatar from every index and returns it; a second delete finds nothing', () =>
      withStore(async (store) => {
        const keep = makePhotoAvatar({ owner: 'alice', createdAt: at(1) });
        const gone = makePhotoAvatar({ owner: 'alice', createdAt: at(2) });
        await store.create(keep);
        await store.create(gone);
        assert.deepEqual(await store.delete(gone.uid), gone);
        assert.equal(await store.get(gone.uid), undefined);
        assert.deepEqual(await store.list('alice', 0, 10), { total: 1, items: [keep] });
        assert.equal(await store.delete(gone.uid), undefined);
      }));
  });
}
