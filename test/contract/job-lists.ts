/**
 * The job-list part of the contract (GET /v2/2davatar and GET /v1/sourceSeparations): envelope, exact item
 * fields, order, status filter and paging. Shared by the memory-store run and the Redis run.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { envelopeSchema } from '../../src/core/schemas/common.js';
import { avatarVideoSchema } from '../../src/core/kinds/avatar-video/schemas.js';
import { separationListItemSchema } from '../../src/core/kinds/separation/schemas.js';
import type { TestApp } from '../helpers/apps.js';
import { assertError, assertKeys, assertStamps, waitForJob } from '../helpers/checks.js';
import { createSeparation, createVideo, firstAvatarId } from '../helpers/client.js';
import type { Harness } from '../helpers/harness.js';

const VIDEO_ITEM_KEYS = ['uid', 'status', 'path', 'createdAt', 'updatedAt'];
const SEPARATION_ITEM_KEYS = ['uid', 'status', 'path', 'createdAt', 'updatedAt'];

/** Registers the job-list tests on `app()` for `key`, a key no other test of that app uses. */
export function jobListContract(h: Harness, app: () => TestApp, key: string): void {
  describe('job lists', () => {
    /** Per resource: the uid of a completed job (older) and of a failed one (newer). */
    const made = {} as Record<'video' | 'separation', { completed: string; failed: string }>;

    before(async () => {
      const avatarId = await firstAvatarId(app(), key);
      const video = await createVideo(app(), key, { audioUrl: h.url('speech.mp3'), avatarId });
      await waitForJob(app(), `/v2/2davatar/${video}`, key, ['completed']);
      const dangerous = await createVideo(app(), key, { audioUrl: h.url('speech.mp3'), avatarId, dangerousFlag: true });
      made.video = { completed: video, failed: dangerous };

      const separation = await createSeparation(app(), key, h.url('speech.mp3'));
      await waitForJob(app(), `/v1/sourceSeparations/${separation}`, key, ['completed']);
      const engine = app().separation;
      engine.behaviour = { failWith: 'separation double failed on purpose' };
      try {
        const failing = await createSeparation(app(), key, h.url('speech.wav'));
        await waitForJob(app(), `/v1/sourceSeparations/${failing}`, key, ['error']);
        made.separation = { completed: separation, failed: failing };
      } finally {
        engine.behaviour = {};
      }
      await waitForJob(app(), `/v2/2davatar/${dangerous}`, key, ['error']);
    });

    const families = [
      { name: 'avatar video jobs', list: '/v2/2davatar', kind: 'video', keys: VIDEO_ITEM_KEYS, schema: avatarVideoSchema },
      { name: 'source separations', list: '/v1/sourceSeparations', kind: 'separation', keys: SEPARATION_ITEM_KEYS, schema: separationListItemSchema },
    ] as const;

    for (const family of families) {
      describe(family.name, () => {
        it('lists newest first in the envelope with exactly the list fields', async () => {
          const res = await app().http.get(family.list).set('key', key);
          assert.equal(res.status, 200, res.text);
          envelopeSchema(family.schema.strict()).strict().parse(res.body);
          assertKeys(res.body, ['page', 'perPage', 'total', 'nextPage', 'data'], 'envelope');
          assert.deepEqual([res.body.page, res.body.perPage, res.body.total, res.body.nextPage], [1, 20, 2, null]);
          const [failed, completed] = res.body.data;
          assert.deepEqual([failed.uid, completed.uid], [made[family.kind].failed, made[family.kind].completed]);
          assertKeys(completed, family.keys, 'completed item');
          assertKeys(failed, [...family.keys, 'errorReason'], 'failed item');
          for (const item of [failed, completed]) assertStamps(item);
          assert.equal(completed.status, 'completed');
          assert.equal(failed.status, 'error');
          assertKeys(failed.errorReason, ['code', 'message'], 'errorReason');
          if (family.kind === 'video') {
            assert.ok(completed.path.startsWith(`${app().origin}/files/`), completed.path);
            assert.equal(failed.path, '');
          } else {
            assertKeys(completed.path, ['speech', 'ambience'], 'path');
            assert.ok(completed.path.speech.startsWith(`${app().origin}/files/`), completed.path.speech);
            assert.ok(completed.path.ambience.startsWith(`${app().origin}/files/`), completed.path.ambience);
            assert.deepEqual(failed.path, { speech: '', ambience: '' });
          }
        });

        it('filters by status', async () => {
          const uids = async (status: string) => {
            const res = await app().http.get(`${family.list}?status=${status}`).set('key', key);
            assert.equal(res.status, 200, res.text);
            assert.equal(res.body.total, res.body.data.length);
            return res.body.data.map((job: { uid: string; status: string }) => {
              assert.equal(job.status, status);
              return job.uid;
            });
          };
          assert.deepEqual(await uids('completed'), [made[family.kind].completed]);
          assert.deepEqual(await uids('error'), [made[family.kind].failed]);
          assert.deepEqual(await uids('pending'), []);
          assert.deepEqual(await uids('ongoing'), []);
        });

        it('pages with page and perPage', async () => {
          const first = await app().http.get(`${family.list}?perPage=1`).set('key', key);
          assert.deepEqual([first.body.page, first.body.perPage, first.body.total, first.body.nextPage], [1, 1, 2, 2]);
          assert.deepEqual(first.body.data.map((j: { uid: string }) => j.uid), [made[family.kind].failed]);
          const second = await app().http.get(`${family.list}?perPage=1&page=2`).set('key', key);
          assert.deepEqual([second.body.page, second.body.total, second.body.nextPage], [2, 2, null]);
          assert.deepEqual(second.body.data.map((j: { uid: string }) => j.uid), [made[family.kind].completed]);
          const filtered = await app().http.get(`${family.list}?perPage=1&status=error`).set('key', key);
          assert.deepEqual([filtered.body.total, filtered.body.nextPage], [1, null]);
        });

        it('answers 400 naming the field for a bad status, bad paging or an unknown query field', async () => {
          assertError(await app().http.get(`${family.list}?status=done`).set('key', key), 400, 'validation_failed', ['query.status']);
          assertError(await app().http.get(`${family.list}?perPage=0`).set('key', key), 400, 'validation_failed', ['query.perPage']);
          assertError(await app().http.get(`${family.list}?perPage=101`).set('key', key), 400, 'validation_failed', ['query.perPage']);
          assertError(await app().http.get(`${family.list}?page=-1`).set('key', key), 400, 'validation_failed', ['query.page']);
          assertError(await app().http.get(`${family.list}?sort=asc`).set('key', key), 400, 'validation_failed', ['query.sort']);
        });
      });
    }
  });
}
