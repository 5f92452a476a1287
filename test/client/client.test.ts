/**
 * The typed client (`virtual-anchor/client`) against a real instance on Express with engine doubles: every
 * call, upload with FormData, waitForCompletion with backoff and abort, cancel's URL, and typed errors
 * carrying the API's error body. Its types are checked at compile time against the service's zod schemas and the
 * operations of its OpenAPI document (the checks below).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { z } from 'zod';
import {
  VirtualAnchorApiError,
  VirtualAnchorClient,
  VirtualAnchorNetworkError,
  type Avatar,
  type AvatarListItem,
  type AvatarVideo,
  type AvatarVideoCreated,
  type CreateAvatar,
  type CreateAvatarVideo,
  type CreateSourceSeparation,
  type ErrorBody,
  type ErrorReason,
  type JobListOptions,
  type JobStatus,
  type Page,
  type SourceSeparation,
  type SourceSeparationCreated,
  type SourceSeparationListItem,
  type ThumbnailGenerationStatus,
  type Upload,
  type AvatarVideoWebhookEvent,
  type SourceSeparationWebhookEvent,
} from '../../src/client/index.js';
import type { operations } from '../../src/client/openapi-types.js';
import type { avatarListItemSchema, avatarSchema, createAvatarBodySchema } from '../../src/core/schemas/avatar.js';
import type {
  avatarVideoCreatedSchema,
  avatarVideoSchema,
  createAvatarVideoBodySchema,
  webhookAvatarVideoEventSchema,
} from '../../src/core/kinds/avatar-video/schemas.js';
import type { errorBodySchema } from '../../src/core/schemas/common.js';
import type {
  createSeparationBodySchema,
  separationCreatedSchema,
  separationListItemSchema,
  separationSchema,
  webhookSeparationEventSchema,
} from '../../src/core/kinds/separation/schemas.js';
import type { uploadSchema } from '../../src/core/schemas/upload.js';
import { KEYS, SUITE_TIMEOUT_MS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/checks.js';
import { useHarness } from '../helpers/harness.js';

/**
 * Compile-time checks: `tsc --noEmit` (npm run typecheck) fails on a line whose `Equal` is not `true`; nothing
 * here runs. The client's types are aliases of those generated from the OpenAPI document (src/client/openapi-types.ts,
 * kept current by test/client/openapi-types.test.ts); these pin them to the zod schemas, to the document's
 * operations as the client's calls use them, and to the values the client and its users rely on.
 */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Check<T extends true> = T;
/** The JSON body an operation answers with `status`. */
type Answer<K extends keyof operations, S extends keyof operations[K]['responses']> = operations[K]['responses'][S] extends {
  content: { 'application/json': infer B };
}
  ? B
  : never;
/** The JSON body an operation takes. */
type Body<K extends keyof operations> = operations[K]['requestBody'] extends { content: { 'application/json': infer B } } ? B : never;
/** The query parameters of an operation. */
type Query<K extends keyof operations> = NonNullable<operations[K]['parameters']['query']>;
/** What a client call resolves to. */
type Resolves<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;
type Videos = VirtualAnchorClient['avatarVideos'];
type Separations = VirtualAnchorClient['sourceSeparations'];
type Avatars = VirtualAnchorClient['avatars'];
type Uploads = VirtualAnchorClient['uploads'];

type TypesMatchSchemas = [
  Check<Equal<Avatar, z.output<typeof avatarSchema>>>,
  Check<Equal<AvatarListItem, z.output<typeof avatarListItemSchema>>>,
  Check<Equal<CreateAvatar, z.input<typeof createAvatarBodySchema>>>,
  Check<Equal<CreateAvatarVideo, z.input<typeof createAvatarVideoBodySchema>>>,
  Check<Equal<AvatarVideoCreated, z.output<typeof avatarVideoCreatedSchema>>>,
  Check<Equal<AvatarVideo, z.output<typeof avatarVideoSchema>>>,
  Check<Equal<CreateSourceSeparation, z.input<typeof createSeparationBodySchema>>>,
  Check<Equal<SourceSeparationCreated, z.output<typeof separationCreatedSchema>>>,
  Check<Equal<SourceSeparationListItem, z.output<typeof separationListItemSchema>>>,
  Check<Equal<SourceSeparation, z.output<typeof separationSchema>>>,
  Check<Equal<Upload, z.output<typeof uploadSchema>>>,
  Check<Equal<ErrorBody, z.output<typeof errorBodySchema>>>,
  Check<Equal<AvatarVideoWebhookEvent, z.output<typeof webhookAvatarVideoEventSchema>>>,
  Check<Equal<SourceSeparationWebhookEvent, z.output<typeof webhookSeparationEventSchema>>>,
];

type CallsMatchOperations = [
  Check<Equal<Resolves<Avatars['list']>, Answer<'getV2Avatar', 200>>>,
  Check<Equal<Resolves<Avatars['get']>, Answer<'getV2AvatarUid', 200>>>,
  Check<Equal<Exclude<Parameters<Avatars['create']>[0], Blob>, Body<'postV2Avatar'>>>,
  Check<Equal<Resolves<Avatars['create']>, Answer<'postV2Avatar', 201>>>,
  Check<Equal<Parameters<Videos['create']>[0], Body<'postV22davatar'>>>,
  Check<Equal<Resolves<Videos['create']>[], Answer<'postV22davatar', 201>>>,
  Check<Equal<Resolves<Videos['get']>, Answer<'getV22davatarId', 200>>>,
  Check<Equal<Resolves<Videos['list']>, Answer<'getV22davatar', 200>>>,
  Check<Equal<Resolves<Videos['cancel']>, Answer<'postV22davatarIdCancel', 200>>>,
  Check<Equal<Parameters<Separations['create']>[0], Body<'postV1SourceSeparations'>>>,
  Check<Equal<Resolves<Separations['create']>[], Answer<'postV1SourceSeparations', 201>>>,
  Check<Equal<Resolves<Separations['get']>, Answer<'getV1SourceSeparationsSourceSeparationId', 200>>>,
  Check<Equal<Resolves<Separations['list']>, Answer<'getV1SourceSeparations', 200>>>,
  Check<Equal<Resolves<Separations['cancel']>, Answer<'postV1SourceSeparationsSourceSeparationIdCancel', 200>>>,
  Check<Equal<NonNullable<JobListOptions['status']>, NonNullable<Query<'getV22davatar'>['status']>>>,
  Check<Equal<NonNullable<JobListOptions['status']>, NonNullable<Query<'getV1SourceSeparations'>['status']>>>,
  Check<Equal<Resolves<Uploads['create']>, Answer<'postV1Uploads', 201>>>,
  Check<Equal<Resolves<Uploads['get']>, Answer<'getV1UploadsId', 200>>>,
  Check<Equal<ErrorBody, Answer<'postV22davatar', 400>>>,
];

type ValuesArePinned = [
  Check<Equal<JobStatus, 'pending' | 'ongoing' | 'completed' | 'error'>>,
  Check<Equal<ThumbnailGenerationStatus, 'pending' | 'completed' | 'error'>>,
  Check<Equal<ErrorReason, { code: string; message: string }>>,
  Check<Equal<Page<AvatarVideo>, { page: number; perPage: number; total: number; nextPage: number | null; data: AvatarVideo[] }>>,
  Check<Equal<AvatarVideoWebhookEvent['type'], 'avatarVideo.completed' | 'avatarVideo.error'>>,
  Check<Equal<SourceSeparationWebhookEvent['type'], 'sourceSeparation.completed' | 'sourceSeparation.error'>>,
];

const h = useHarness();
const FAST = { backoff: { firstMs: 20, maxMs: 100, maxAfterErrorMs: 200 } };

describe('virtual-anchor/client against a real instance (Express)', { timeout: SUITE_TIMEOUT_MS }, () => {
  let app: TestApp;
  let api: VirtualAnchorClient;
  before(async () => {
    app = await makeApp('express', { basePath: '/media' });
    api = new VirtualAnchorClient({ baseUrl: `${app.origin}/media/`, apiKey: KEYS.d });
  });
  after(() => app.close());

  it('lists and gets avatars', async () => {
    const page = await api.avatars.list({ perPage: 2 });
    assert.equal(page.perPage, 2);
    assert.ok(page.total >= 1 && page.data.length >= 1);
    const one = await api.avatars.get(page.data[0]!.uid);
    assert.equal(one.name, page.data[0]!.name);
  });

  it('uploads a file (FormData), makes a video from it and waits for completion with backoff', async () => {
    const bytes = await readFile(h.path('speech.mp3'));
    const upload = await api.uploads.create(new Blob([bytes], { type: 'audio/mpeg' }), { fileName: 'speech.mp3' });
    assert.equal(upload.fileName, 'speech.mp3');
    assert.equal(upload.size, bytes.length);
    assert.deepEqual(await api.uploads.get(upload.uid), upload);
    const avatarId = (await api.avatars.list()).data[0]!.uid;
    const created = await api.avatarVideos.create({ audioUrl: upload.url, avatarId });
    assert.equal(created.status, 'pending');
    const seen: string[] = [];
    const done = await api.avatarVideos.waitForCompletion(created.uid, { ...FAST, onUpdate: (job) => seen.push(job.status) });
    assert.equal(done.status, 'completed');
    assert.ok(done.path.startsWith(`${app.origin}/media/files/`), done.path);
    assert.equal(seen.at(-1), 'completed');
    const listed = await api.avatarVideos.list({ status: 'completed' });
    assert.ok(listed.data.some((job) => job.uid === created.uid));
    assert.equal((await api.avatarVideos.get(created.uid)).status, 'completed');
  });

  it('creates, waits for, lists and gets a source separation', async () => {
    const created = await api.sourceSeparations.create({ audioUri: h.url('speech.wav') });
    assert.equal(created.audioUri, h.url('speech.wav'));
    const done = await api.sourceSeparations.waitForCompletion(created.uid, FAST);
    assert.equal(done.status, 'completed');
    assert.ok(done.path.speech && done.path.ambience);
    assert.equal(done.taskId, (await api.sourceSeparations.get(created.uid)).taskId);
    const listed = await api.sourceSeparations.list({ perPage: 5 });
    assert.equal(listed.data[0]!.uid, created.uid);
  });

  it('stops waiting when the signal aborts, while the job is still ongoing', async () => {
    const release = app.lipSync.hold();
    try {
      const avatarId = (await api.avatars.list()).data[0]!.uid;
      const created = await api.avatarVideos.create({ audioUrl: h.url('speech.mp3'), avatarId });
      const controller = new AbortController();
      const waiting = api.avatarVideos.waitForCompletion(created.uid, {
        ...FAST,
        signal: controller.signal,
        onUpdate: (job) => {
          if (job.status === 'ongoing') controller.abort(new Error('enough'));
        },
      });
      await assert.rejects(waiting, /enough/);
      assert.equal((await api.avatarVideos.get(created.uid)).status, 'ongoing');
    } finally {
      release();
    }
  });

  it('throws typed errors carrying the error body', async () => {
    const invalid = await api.avatarVideos.create({ audioUrl: 'not a url', avatarId: '' }).catch((e: unknown) => e);
    assert.ok(invalid instanceof VirtualAnchorApiError);
    assert.equal(invalid.status, 400);
    assert.equal(invalid.code, 'validation_failed');
    assert.deepEqual(invalid.details.map((d) => d.field).sort(), ['body.audioUrl', 'body.avatarId']);
    assert.equal(invalid.body?.error.message, invalid.message);
    const missing = await api.sourceSeparations.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    assert.ok(missing instanceof VirtualAnchorApiError);
    assert.deepEqual([missing.status, missing.code, missing.transient], [404, 'not_found', false]);
    const stranger = new VirtualAnchorClient({ baseUrl: `${app.origin}/media`, apiKey: 'wrong' });
    const forbidden = await stranger.avatars.list().catch((e: unknown) => e);
    assert.ok(forbidden instanceof VirtualAnchorApiError);
    assert.deepEqual([forbidden.status, forbidden.code], [403, 'forbidden']);
  });

  it('reports an unreachable service as a network error, and a wait goes on through transient failures', async () => {
    const offline = new VirtualAnchorClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEYS.d });
    await assert.rejects(offline.avatars.list(), VirtualAnchorNetworkError);
    const created = await api.sourceSeparations.create({ audioUri: h.url('speech.wav') });
    let calls = 0;
    const flaky = new VirtualAnchorClient({
      baseUrl: `${app.origin}/media`,
      apiKey: KEYS.d,
      fetch: (input, init) => (++calls <= 2 ? Promise.reject(new TypeError('fetch failed')) : fetch(input, init)),
    });
    const errors: unknown[] = [];
    const done = await flaky.sourceSeparations.waitForCompletion(created.uid, { ...FAST, onError: (e) => errors.push(e) });
    assert.equal(done.status, 'completed');
    assert.equal(errors.length, 2);
    assert.ok(errors.every((e) => e instanceof VirtualAnchorNetworkError));
  });

  it('cancels with POST <collection>/{id}/cancel and sends an idempotency key on creation', async () => {
    const calls: string[] = [];
    const sentKeys: (string | undefined)[] = [];
    const recording = new VirtualAnchorClient({
      baseUrl: `${app.origin}/media`,
      apiKey: KEYS.d,
      fetch: (input, init) => {
        calls.push(`${init?.method} ${String(input)}`);
        sentKeys.push((init?.headers as Record<string, string>)['idempotency-key']);
        return fetch(input, init);
      },
    });
    const created = await recording.sourceSeparations.create({ audioUri: h.url('speech.wav') }, { idempotencyKey: 'retry-1' });
    // A quick job may have finished already (409 conflict); otherwise it is canceled: which one happened is asserted.
    const apiError = (e: unknown) => (e instanceof VirtualAnchorApiError ? [e.status, e.code] : e);
    const cancelOutcome = await recording.sourceSeparations.cancel(created.uid).then(
      (job) => ({ canceled: true, answer: [job.status, job.errorReason?.code] }),
      (e: unknown) => ({ canceled: false, answer: apiError(e) }),
    );
    assert.deepEqual(cancelOutcome.answer, cancelOutcome.canceled ? ['error', 'canceled'] : [409, 'conflict']);
    assert.deepEqual(await recording.avatarVideos.cancel('a/b').then(() => 'answered', apiError), [404, 'not_found']);
    // Photo avatars take the key too, as a file or as a link (neither is an image).
    for (const source of [new Blob(['not a photo'], { type: 'image/png' }), { imageUrl: h.url('speech.wav') }]) {
      assert.deepEqual(await recording.avatars.create(source, { idempotencyKey: 'photo-1' }).then(() => 'answered', apiError), [400, 'not_image']);
    }
    assert.deepEqual(calls, [
      `POST ${app.origin}/media/v1/sourceSeparations`,
      `POST ${app.origin}/media/v1/sourceSeparations/${created.uid}/cancel`,
      `POST ${app.origin}/media/v2/2davatar/a%2Fb/cancel`,
      `POST ${app.origin}/media/v2/avatar`,
      `POST ${app.origin}/media/v2/avatar`,
    ]);
    assert.deepEqual(sentKeys, ['retry-1', undefined, undefined, 'photo-1', 'photo-1']);
    const final = await waitFor('the separation to end', async () => {
      const job = await api.sourceSeparations.get(created.uid);
      return job.status === 'completed' || job.status === 'error' ? job : undefined;
    });
    assert.equal(final.status, cancelOutcome.canceled ? 'error' : 'completed');
  });
});
