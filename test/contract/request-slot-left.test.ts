/**
 * The per-key request slots of /v1 (SPEC §8: one request of a key at a time, `concurrency.maxQueuedRequestsPerKey`
 * more may wait, then 429): a request whose client leaves while it waits for the slot is dropped and frees its place
 * in the queue. Before, it stayed queued for nobody (and then ran), so the key's next request got 429.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { ADAPTERS, KEYS, makeApp, SUITE_TIMEOUT_MS, type TestApp } from '../helpers/apps.js';
import { assertError } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';
import { slowUpload } from '../helpers/slow-upload.js';

const h = useHarness();

for (const adapter of ADAPTERS) {
  describe(`a /v1 request whose client leaves while it waits for its key's slot, over ${adapter}`, { timeout: SUITE_TIMEOUT_MS }, () => {
    let app: TestApp;
    before(async () => {
      app = await makeApp(adapter, { concurrency: { v1RequestsPerKey: 1, maxQueuedRequestsPerKey: 1 } });
    });
    after(() => app?.close());

    it('frees its place in the queue: the key’s next request waits instead of getting 429', async () => {
      const holder = slowUpload(app.origin, '/v1/uploads', KEYS.a, await readFile(h.path('speech.wav')));
      // The upload holds the key's slot; a request of the key takes the one waiting place.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const leaving = httpRequest(`${app.origin}/v1/uploads/none-such`, { agent: false, headers: { key: KEYS.a } });
      let answered = false;
      leaving.on('response', () => (answered = true));
      const left = new Promise((resolve) => leaving.on('error', resolve));
      leaving.end();
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(answered, false, 'it waits for the slot');
      assertError(await app.http.get('/v1/uploads/none-such').set('key', KEYS.a), 429, 'too_many_requests');
      leaving.destroy();
      await left;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const next = app.http.get('/v1/uploads/none-such').set('key', KEYS.a).then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 200));
      holder.finish();
      assert.equal((await holder.response).status, 201);
      assertError(await next, 404, 'not_found');
    });
  });
}
