import { z } from 'zod';
import type { AuthenticateFn } from './auth.js';
import type { Registry } from 'prom-client';
import type { Logger } from '../domain/logger.js';
import type { JobStore } from '../storage/job-store.js';
import type { WebhookOutbox } from '../storage/webhook-outbox.js';
import type { IdempotencyStore } from '../storage/idempotency-store.js';
import type { JobEvents } from '../storage/job-events.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { S3Location } from '../storage/s3-blob-store.js';
import type { JobQueue } from '../queue/job-queue.js';
import type { AvatarAssetRenderer, FaceDetector, LipSyncEngine, PhotoAvatarAssetRenderer, SeparationEngine, VideoAvatarPreparer } from '../domain/engines.js';
import type { AvatarStore } from '../storage/avatar-store.js';
import type { AvatarDefinitionInput } from '../domain/avatar/definition.js';
import { isWebhookSecret } from './webhooks/signature.js';
import { MAX_JSON_DEPTH } from './http/read-json.js';
import { WEBHOOK_RETRY_DELAYS_MS } from './webhooks/retry-schedule.js';
import type { KindSpec } from './kinds/kind-spec.js';
import type { KindRegistry } from './kinds/registry.js';

declare module 'zod' {
  interface GlobalMeta {
    /** An option's default in words, for docs/options.md, where the schema has no `.default()` that says it. */
    defaultText?: string;
  }
}

const HOUR = 3_600_000;

/** Options of {@link createVirtualAnchor}, `virtualAnchor()` (Express) and `virtualAnchorKoa()`. */
export interface VirtualAnchorOptions {
  /** Accepted API keys (sent as `key: <key>` or `key: Bearer <key>`). Give this or `authenticate`. */
  apiKeys?: string[];
  /** Custom key check, e.g. against a database. Called for every request; return true to accept. */
  authenticate?: AuthenticateFn;
  /** Path prefix under which the routes live, e.g. `/api` serves `/api/v2/avatar`. Default `''`. */
  basePath?: string;
  /** Directory for blobs (inputs, uploads, results, avatar assets) and the link-signing secret. Default `./.virtual-anchor`. */
  dataDir?: string;
  /** Absolute base of links in responses, e.g. `https://media.example.com/api`. Default: derived from each request. */
  publicUrl?: string;
  /** Redis URL (e.g. `redis://127.0.0.1:6379`): store job records in Redis instead of memory. */
  redis?: string;
  /**
   * Keep blobs (uploads, fetched inputs, results, avatar assets) in an S3-compatible object store instead of under
   * `dataDir`; result and avatar links are then presigned GET URLs served by the store. `backends.blobStore` wins
   * over this. Credentials default to the AWS SDK's chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profile, IMDS).
   */
  s3?: S3Location;
  /** Key prefix for Redis records and the BullMQ queue. Default `virtual-anchor`. */
  redisNamespace?: string;
  /**
   * What this process does. `all` (default): serves the API and runs jobs. `api`: serves the API and runs no
   * engine (the built-in engines are not even loaded); needs the `bullmq` queue. `worker`: runs jobs and
   * avatar asset generation and serves no API (only `/healthz` and `/readyz`); needs the `bullmq` queue.
   */
  role?: 'all' | 'api' | 'worker';
  /**
   * Job queue: `memory` (in-process p-queue, one process) or `bullmq` (BullMQ on `redis`: any number of API
   * and worker processes, per-key limits across all of them, retries when a worker dies).
   * Default: `bullmq` when `redis` is set, else `memory`.
   */
  queue?: 'memory' | 'bullmq';
  /**
   * Runs of one job at most with the `bullmq` queue: a job whose worker died (or whose run failed in the
   * service itself, e.g. the store was unreachable) runs again on another worker until this many runs began,
   * then ends in `error` (`interrupted`). An engine's own failure is not retried. Default 3.
   */
  maxAttempts?: number;
  /**
   * How long the Redis job store waits for Redis. While Redis is unreachable, routes that need job
   * records answer 503 `unavailable` at once (nothing is queued) and the store reconnects in the background.
   */
  redisTimeouts?: {
    /** Longest wait for a connection to Redis. Default 2 000 ms. */
    connectMs?: number;
    /** Longest wait for the answer to one store operation. Default 2 000 ms. */
    commandMs?: number;
  };
  /**
   * Longest time `close()` of an instance takes, whatever the store or the engines do: past it,
   * close logs what it was still waiting for and resolves. Default 10 000 ms.
   */
  shutdownTimeoutMs?: number;
  /** Lets `audioUrl`/`audioUri`/`backgroundUrl` point at loopback and private addresses. Default false (SSRF guard). */
  allowPrivateUrls?: boolean;
  /** Secret for signing file links. Default: a random secret created once in `dataDir`. */
  signingSecret?: string;
  /** Explicit ffmpeg binary. Default: `FFMPEG_PATH`, then the system ffmpeg, then `@ffmpeg-installer/ffmpeg`. */
  ffmpegPath?: string;
  /** Explicit ffprobe binary. Default: `FFPROBE_PATH`, then the system ffprobe, then `@ffprobe-installer/ffprobe`. */
  ffprobePath?: string;
  /**
   * Where log lines go: a `console`-like logger, winston, or pino (recognised and called as `logger.warn(fields, message)`).
   * Default: warnings and errors to the console. Pass `false` to silence.
   */
  logger?: Logger | false;
  /**
   * Prometheus metrics (prom-client) at `GET <basePath>/metrics`, no key. `true` or `{ path, register }`; `register` is a
   * prom-client `Registry` to add them to (default: the instance's own, so two instances never clash). Default off.
   */
  metrics?: boolean | { path?: string; register?: Registry };
  /** Concurrency limits. */
  concurrency?: {
    /** Jobs of one key and one API family processed at once. Default 1 (the spec's per-key limit). */
    jobsPerKey?: number;
    /** Engine runs at once in this process, all keys together. Default: number of CPU cores. */
    engines?: number;
    /** HTTP requests of one key in flight at once on the /v1 routes. Default 1 (SPEC §8). */
    v1RequestsPerKey?: number;
    /** Same for /v2 routes. Default unlimited (the spec states the limit for /v1 only). */
    v2RequestsPerKey?: number;
    /**
     * Requests of one key that may wait for a slot before the service answers 429; also the checks of one key's input
     * files that may wait for the media command children (0: a key may still queue one check when it has none in
     * flight). Default 32.
     */
    maxQueuedRequestsPerKey?: number;
  };
  /** Size, duration and paging limits. */
  limits?: {
    /** Largest upload (POST /v1/uploads) in bytes. Default 200 MiB. */
    maxUploadBytes?: number;
    /** Largest portrait accepted by POST /v2/avatar (a multipart `file` or a downloaded `imageUrl`); larger is 413. Default 20 MiB. */
    maxPhotoBytes?: number;
    /**
     * Portraits of one key that may wait for face detection (POST /v2/avatar; one detection runs at a time, keys take
     * turns); one more is answered 429 `too_many_requests` with `Retry-After`. Default 4.
     */
    maxQueuedPhotosPerKey?: number;
    /** Largest clip accepted by POST /v2/avatar for a video avatar (a multipart `file` or a downloaded `videoUrl`); larger is 413. Default 200 MiB. */
    maxAvatarVideoBytes?: number;
    /** Shortest clip of a video avatar in seconds (from its packets at creation, decoded by its preparation). Default 3. */
    minAvatarVideoSec?: number;
    /** Longest clip of a video avatar in seconds. Default 300. */
    maxAvatarVideoSec?: number;
    /** Largest file downloaded from an `audioUrl`/`audioUri`/`backgroundUrl`. Default 200 MiB. */
    maxDownloadBytes?: number;
    /** Time limit of such a download in ms. Default 60 000. */
    downloadTimeoutMs?: number;
    /** Longest speech for an avatar video, in seconds. Default 300 (SPEC §8). */
    maxAvatarAudioSec?: number;
    /** Longest input of a source separation, in seconds. Default 1200 (20 minutes). */
    maxSeparationSec?: number;
    /** Largest JSON body in bytes. Default 65 536. */
    maxJsonBytes?: number;
    /** Default `perPage` of list endpoints. Default 20. */
    defaultPerPage?: number;
    /** Largest `perPage`. Default 100. */
    maxPerPage?: number;
    /**
     * Per-job deadline, fixed part: a job still running `jobTimeoutMs + input seconds × jobTimeoutPerInputSecondMs`
     * after it started ends in `error` (code `timeout`) and its engine is aborted. Default 300 000 (5 minutes).
     */
    jobTimeoutMs?: number;
    /** Per-job deadline, part per second of input (audio duration). Default 4 000 (4× the input's duration). */
    jobTimeoutPerInputSecondMs?: number;
    /**
     * How long an engine still working after its job ended (canceled, past its deadline, shut down) may take to stop
     * before the job's work folder is removed anyway; `close()` waits for such engines this long at most. The
     * built-in engines stop within about a second. Default 5 000.
     */
    engineStopGraceMs?: number;
  };
  /** Retention and link lifetimes. */
  retention?: {
    /** Results are deleted this long after completion. Default 24 h. */
    resultsMs?: number;
    /** Uploads are deleted this long after upload. Default 24 h. */
    uploadsMs?: number;
    /** Lifetime of a signed link handed out in a response. Default 1 h (each GET hands out a fresh one). */
    linkTtlMs?: number;
    /** How often the sweeper deletes expired files and recovers stuck jobs. Default 60 000 ms. */
    sweepIntervalMs?: number;
    /**
     * An `ongoing` job whose heartbeat is older than this was left by a dead process. Default 120 000 ms.
     * The heartbeat is written every `staleJobMs / 8` (at most every 15 s); it also notices a job ended elsewhere.
     */
    staleJobMs?: number;
    /**
     * A job record is deleted this long after the job reached a final state (`completed`/`error`):
     * GET then answers 404 and lists no longer count it. Default 7 days.
     */
    recordsMs?: number;
  };
  /**
   * Webhooks: jobs created with `webhookUrl` POST a signed event (Standard Webhooks) there when they reach
   * `completed` or `error`. Without `secret`, a `webhookUrl` is refused (400 `webhooks_disabled`).
   */
  webhooks?: {
    /** Signing secret, `whsec_` followed by at least 16 random bytes in base64 (e.g. `'whsec_' + randomBytes(32).toString('base64')`). */
    secret?: string;
    /** Waits before each retry in ms. Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 27.6 h in all). */
    retryDelaysMs?: number[];
    /** Deadline of one delivery attempt. Default 10 000 ms. */
    timeoutMs?: number;
    /** How often due deliveries are looked for. Default 1 000 ms. */
    pollMs?: number;
  };
  /** Delay after which a job created with `dangerousFlag: true` is moved to `error`. Default 10 000 ms (SPEC §3). */
  dangerousFlagDelayMs?: number;
  /**
   * Custom or extra backends. Anything left out uses the built-in default. A backend given here (or registered on
   * `instance.container` before start-up) is the host's: the instance never closes it (the queue excepted).
   */
  backends?: {
    /** Job records. With your own, give `idempotencyStore` too, and `webhookOutbox` when `webhooks.secret` is set. */
    jobStore?: JobStore;
    /**
     * The webhook outbox that `jobStore`'s final transitions write (a built-in store's is `store.outbox`). Needed with
     * your own `jobStore` when `webhooks.secret` is set; refused without it.
     */
    webhookOutbox?: WebhookOutbox;
    /** Idempotency keys. Default: beside the built-in job store (Redis with `redis`, else memory); needed with your own `jobStore`. */
    idempotencyStore?: IdempotencyStore;
    /**
     * Announcements of jobs ended or taken over (`JobEvents`), so that a cancel made through one process stops the
     * engine in another at once. Default: Redis pub/sub with `redis`, else within the process. Give one with a
     * custom `jobStore` shared by several processes (without it, those processes notice ends at their heartbeat).
     */
    jobEvents?: JobEvents;
    blobStore?: BlobStore;
    /** A job queue of your own (see `JobQueue`); replaces the `queue` choice. Closed by the instance. */
    queue?: JobQueue;
    /** `false` disables the built-in lip-sync engine (jobs then end in `error`). */
    lipSync?: LipSyncEngine | false;
    /** `false` disables the built-in separation engine (jobs then end in `error`). */
    separation?: SeparationEngine | false;
    /** Renders avatar catalogue assets; `false` leaves assets ungenerated. */
    avatarRenderer?: AvatarAssetRenderer | false;
    /** Finds the face in a portrait at POST /v2/avatar (every role that serves the API); `false` turns photo avatars off (503). */
    faceDetector?: FaceDetector | false;
    /** Renders photo avatars' idle clip, preview and thumbnail; `false`: their preparation ends in `error`. */
    photoRenderer?: PhotoAvatarAssetRenderer | false;
    /** Prepares video avatars' clips (engine processes); `false`: their preparation ends in `error`. */
    videoPreparer?: VideoAvatarPreparer | false;
    /** Where photo avatars are kept. Default: in Redis when `redis` is set, else in process memory. */
    avatarStore?: AvatarStore;
  };
  /**
   * Job kinds of your own, added to the built-in ones (a `KindSpec` each, made with `defineKind`): each with an
   * `api` gets its create, list, get and cancel routes, OpenAPI entries and webhooks; every kind its runs,
   * recovery and metrics. Names, collection paths and webhook names must not clash with the built-in kinds'.
   */
  jobKinds?: KindSpec[];
  /** Avatar catalogue. */
  avatars?: {
    /** Include the bundled avatars. Default true. */
    builtIn?: boolean;
    /** Extra avatar definitions (format in avatars/README.md). */
    definitions?: AvatarDefinitionInput[];
    /** A folder of `*.json` avatar definitions to add. */
    directory?: string;
  };
}

const fn = z.custom<(...args: never[]) => unknown>((v) => typeof v === 'function', 'must be a function');
const obj = z.custom<object>((v) => typeof v === 'object' && v !== null, 'must be an object');
const posInt = z.number().int().positive();
const posMs = z.number().int().positive();

/**
 * Validates options; unknown keys are rejected so a typo fails at start-up, not silently. Every option's
 * `.describe()` (and `defaultText` where the schema's default does not say it) is its documentation:
 * `npm run docs:tables` writes the table of docs/options.md from it, and test/core/docs-tables.test.ts fails when
 * the committed table differs. An object without a description is a group whose fields are listed one by one.
 */
export const optionsSchema = z
  .object({
    apiKeys: z
      .array(z.string().min(1, 'API keys must not be empty'))
      .optional()
      .describe('accepted keys, sent as `key: <key>` or `key: Bearer <key>`; give this or `authenticate`'),
    authenticate: fn
      .optional()
      .describe('async hook `(key) => boolean` returning true to accept a key (checked after `apiKeys`), e.g. against a database; called for every request'),
    basePath: z
      .string()
      .regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'basePath must look like `/api` or `/api/media` (no trailing slash)')
      .default('')
      .describe('prefix for all routes, e.g. `/api` (then `/api/v2/avatar`)'),
    dataDir: z
      .string()
      .min(1)
      .default('./.virtual-anchor')
      .describe('blobs (inputs, uploads, results, avatar assets), job work folders (`work/`) and the link-signing secret'),
    publicUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .meta({ description: 'absolute base of links in responses, e.g. `https://media.example.com/api`', defaultText: 'derived from each request' }),
    redis: z
      .string()
      .regex(/^rediss?:\/\//, 'redis must be a redis:// or rediss:// URL')
      .optional()
      .describe('Redis URL (`redis://` or `rediss://`): job records in Redis (shared by several processes) instead of memory'),
    s3: z
      .object({
        bucket: z
          .string()
          .min(1)
          .meta({
            description:
              'keep uploads, fetched inputs, results and avatar assets in this S3 bucket (it must exist); result and avatar links become presigned GET URLs served by the object store; `backends.blobStore` wins over this',
            defaultText: '— (blobs go under `dataDir`)',
          }),
        prefix: z
          .string()
          .regex(/^([^/]+\/)*$/, 's3.prefix must be empty or end with `/`, e.g. `virtual-anchor/`')
          .optional()
          .meta({ description: 'key prefix inside the bucket; empty or ending in `/`, e.g. `virtual-anchor/`', defaultText: "`''`" }),
        region: z.string().min(1).optional().meta({ description: 'region', defaultText: '`AWS_REGION`, else `us-east-1`' }),
        endpoint: z
          .url({ protocol: /^https?$/ })
          .optional()
          .meta({ description: 'endpoint of an S3-compatible store (MinIO, R2, Ceph), e.g. `http://minio:9000`', defaultText: 'AWS' }),
        forcePathStyle: z
          .boolean()
          .optional()
          .meta({ description: 'path-style URLs (`<endpoint>/<bucket>/<key>`), as most S3-compatible stores need', defaultText: '`false`' }),
        credentials: z
          // Not strict: the AWS SDK marks a credentials object it has used with extra fields.
          .object({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1), sessionToken: z.string().optional() })
          .optional()
          .meta({
            description: 'static `{ accessKeyId, secretAccessKey, sessionToken? }`',
            defaultText: "the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profile, instance role)",
          }),
      })
      .strict()
      .optional(),
    redisNamespace: z
      .string()
      .min(1)
      .default('virtual-anchor')
      .describe(
        'prefix of every Redis key: job records, the BullMQ queue (`<ns>:jobs:*`) and the per-key semaphores (`<ns>:sem:*`), so several deployments and test runs share one Redis safely',
      ),
    role: z
      .enum(['all', 'api', 'worker'])
      .default('all')
      .describe(
        '`all`: serves the API and runs jobs. `api`: serves the API, runs no engine and never loads onnxruntime or canvas. `worker`: runs jobs and avatar asset generation, and answers only `/healthz`, `/readyz` (and metrics). `api` and `worker` need the `bullmq` queue',
      ),
    queue: z
      .enum(['memory', 'bullmq'])
      .optional()
      .meta({
        description: '`memory`: the in-process p-queue (one process). `bullmq`: BullMQ on `redis`, for any number of API and worker processes',
        defaultText: '`bullmq` with `redis`, else `memory`',
      }),
    maxAttempts: posInt
      .default(3)
      .describe(
        'with `bullmq`: how many runs of one job may begin (a worker that died, a shutdown hand-back, a failure inside the service); after the last the job ends in `error` (`interrupted`). Engine failures are not retried, except a crash of an engine\'s child process (a signal, the OOM killer), handed back like a dead worker\'s job (its last attempt ends in `error` with the crash\'s reason). With either queue it also bounds the runs of a photo avatar\'s preparation (which resumes after a restart)',
      ),
    redisTimeouts: z
      .object({
        connectMs: posMs.default(2_000).describe('longest wait for a Redis connection; past it the request answers 503 `unavailable`'),
        commandMs: posMs.default(2_000).describe('longest wait for one store operation; past it the request answers 503 `unavailable`'),
      })
      .strict()
      .prefault({}),
    shutdownTimeoutMs: posMs
      .default(10_000)
      .describe('`close()` resolves within this time whatever the store or engines do (it logs what it gave up on)'),
    allowPrivateUrls: z.boolean().default(false).describe('let input URLs point at loopback/private addresses (development, tests)'),
    signingSecret: z
      .string()
      .min(16, 'signingSecret must be at least 16 characters')
      .optional()
      .meta({ description: 'secret of the signed links (at least 16 characters)', defaultText: 'random, kept in `dataDir/signing-secret`' }),
    ffmpegPath: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'explicit ffmpeg binary', defaultText: '`FFMPEG_PATH`, the system ffmpeg, then `@ffmpeg-installer/ffmpeg`' }),
    ffprobePath: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'explicit ffprobe binary', defaultText: '`FFPROBE_PATH`, the system ffprobe, then `@ffprobe-installer/ffprobe`' }),
    logger: z
      .union([z.literal(false), obj])
      .optional()
      .meta({
        description:
          'any `{ debug, info, warn, error }` (console, winston), or a pino logger (recognised and called as `logger.warn(fields, message)`); `false` silences',
        defaultText: 'warnings and errors to the console',
      }),
    metrics: z
      .union([
        z.boolean(),
        z
          .object({
            path: z.string().regex(/^(\/[A-Za-z0-9._~-]+)+$/, 'metrics.path must look like `/metrics`').optional(),
            register: obj.optional(),
          })
          .strict(),
      ])
      .default(false)
      .describe(
        '`true` or `{ path?, register? }`: Prometheus metrics at `<basePath><path>` (default `/metrics`, no key); `register` is a prom-client `Registry` to add them to (by default each instance has its own, so two instances never clash)',
      ),
    concurrency: z
      .object({
        jobsPerKey: posInt.default(1).describe('jobs of one key and one API family processed at once; others wait as `pending`'),
        engines: posInt.optional().meta({ description: 'engine runs at once in this process, all keys together', defaultText: 'CPU cores' }),
        v1RequestsPerKey: posInt.default(1).describe('requests of one key in flight on /v1 (SPEC §8); others wait'),
        v2RequestsPerKey: posInt
          .optional()
          .meta({ description: 'the same for /v2 (the spec does not state a limit for /v2)', defaultText: 'unlimited' }),
        maxQueuedRequestsPerKey: z
          .number()
          .int()
          .min(0)
          .default(32)
          .describe(
            "requests that may wait for a slot before 429; also the checks of one key's input files (probe, the decode that measures audio, a clip's checks) that may wait for the host's two media command children, where keys take turns. 0: nothing waits, except that a key with no check running or waiting may queue one for its turn (429 only for a key that already has one in flight, never because of other keys' checks)",
          ),
      })
      .strict()
      .prefault({}),
    limits: z
      .object({
        maxUploadBytes: posInt.default(200 * 1024 * 1024).describe('largest upload (`POST /v1/uploads`)'),
        maxPhotoBytes: posInt
          .default(20 * 1024 * 1024)
          .describe('largest portrait accepted by `POST /v2/avatar` (a multipart `file` or a downloaded `imageUrl`); larger is 413'),
        maxAvatarVideoBytes: posInt
          .default(200 * 1024 * 1024)
          .describe('largest clip accepted by `POST /v2/avatar` for a video avatar (a multipart `file` or a downloaded `videoUrl`); larger is 413'),
        minAvatarVideoSec: z
          .number()
          .positive()
          .default(3)
          .describe("shortest clip of a video avatar in seconds: its packets' span at creation (400 `too_short`), what decodes in its preparation (`error`, `too_short`)"),
        maxAvatarVideoSec: z
          .number()
          .positive()
          .default(300)
          .describe('longest clip of a video avatar in seconds (400 `too_long`, likewise)'),
        maxQueuedPhotosPerKey: z
          .number()
          .int()
          .min(0)
          .default(4)
          .describe(
            'portraits of one key that may wait for face detection (`POST /v2/avatar`): one detection runs at a time and keys take turns (round-robin, so another key\'s photo is next); one more is 429 `too_many_requests` with `Retry-After` (an estimate from recent detection times); with 0, a key with no photo in flight still queues one, only a key with one detecting or waiting is refused',
          ),
        maxDownloadBytes: posInt.default(200 * 1024 * 1024).describe('largest file fetched from an input URL (`audioUrl`, `audioUri`, `backgroundUrl`, `imageUrl`)'),
        downloadTimeoutMs: posMs.default(60_000).describe('time limit of such a download'),
        maxAvatarAudioSec: z.number().positive().default(300).describe('longest speech for a video, in seconds (SPEC §8: 5 minutes)'),
        maxSeparationSec: z.number().positive().default(1200).describe('longest separation input, in seconds (20 minutes; the spec sets none)'),
        maxJsonBytes: posInt
          .default(64 * 1024)
          .describe(
            `largest JSON body (its arrays and objects may nest at most ${MAX_JSON_DEPTH} levels deep, a fixed limit exported as \`MAX_JSON_DEPTH\`: deeper is 400 \`validation_failed\`)`,
          ),
        defaultPerPage: posInt.default(20).describe('`perPage` of list endpoints when the query gives none'),
        maxPerPage: posInt.default(100).describe('largest `perPage` (more is 400, not clamped)'),
        jobTimeoutMs: posMs
          .default(300_000)
          .describe(
            'per-job deadline, fixed part: a job still running after `jobTimeoutMs + input seconds × jobTimeoutPerInputSecondMs` ends in `error` (`timeout`) and its engine is aborted',
          ),
        jobTimeoutPerInputSecondMs: z
          .number()
          .min(0)
          .default(4_000)
          .describe("per-job deadline, part per second of input (default: 5 min + 4× the input's duration)"),
        engineStopGraceMs: posMs
          .default(5_000)
          .describe(
            "how long an engine still working after its job ended (canceled, past its deadline, shut down) may take to stop before the job's work folder is removed anyway; `close()` waits for such engines this long at most (the built-in engines stop within about a second)",
          ),
      })
      .strict()
      .prefault({}),
    retention: z
      .object({
        resultsMs: posMs.default(24 * HOUR).describe('results are deleted this long after completion'),
        uploadsMs: posMs.default(24 * HOUR).describe('uploads are deleted this long after upload'),
        linkTtlMs: posMs.default(HOUR).describe('lifetime of a signed link; every GET hands out one with at least 99 % of it left (a link is handed out again for 1 % of it, a minute at most)'),
        sweepIntervalMs: posMs.default(60_000).describe('how often expired files and job records are deleted and stuck jobs recovered'),
        staleJobMs: posMs
          .default(120_000)
          .describe(
            'an `ongoing` job without heartbeat for this long is ended as `interrupted` (with `bullmq`: run again); the heartbeat is written every `staleJobMs / 8` (at most every 15 s)',
          ),
        recordsMs: posMs
          .default(7 * 24 * HOUR)
          .describe('a job record is deleted this long after the job reached `completed` or `error` (then 404; lists no longer count it)'),
      })
      .strict()
      .prefault({}),
    dangerousFlagDelayMs: z
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe('delay after which a job created with `dangerousFlag: true` ends in `error` (the test aid of SPEC §3)'),
    webhooks: z
      .object({
        secret: z
          .string()
          .refine((secret) => isWebhookSecret(secret), 'webhooks.secret must be `whsec_` followed by at least 16 bytes in base64')
          .optional()
          .meta({
            description:
              "`whsec_<base64>` secret (at least 16 bytes, e.g. `'whsec_' + randomBytes(32).toString('base64')`) that signs webhook deliveries; without it `webhookUrl` is refused",
            defaultText: '— (webhooks off)',
          }),
        retryDelaysMs: z
          .array(posMs)
          .min(1)
          .default([...WEBHOOK_RETRY_DELAYS_MS])
          .describe('waits before each retry of a failed delivery (about 27.6 h in all by default); then the delivery is given up'),
        timeoutMs: posMs.default(10_000).describe('an attempt without a 2xx answer within this time has failed'),
        pollMs: posMs.default(1_000).describe('how often each instance looks for due deliveries'),
      })
      .strict()
      .prefault({}),
    backends: z
      .object({
        jobStore: obj
          .optional()
          .meta({
            description:
              'your own `JobStore` of job records (run `jobStoreSuite` from `virtual-anchor/testing` on it); give `idempotencyStore` with it, and `webhookOutbox` when `webhooks.secret` is set (start-up fails naming the missing one)',
            defaultText: 'memory, or Redis with `redis`',
          }),
        webhookOutbox: obj.optional().meta({
          description:
            "the `WebhookOutbox` your `jobStore`'s final transitions write (a built-in store's is `store.outbox`; run `webhookOutboxSuite` on yours); only with your own `jobStore`",
          defaultText: "the built-in job store's own",
        }),
        idempotencyStore: obj.optional().meta({
          description: 'where `Idempotency-Key` answers are kept (`IdempotencyStore`: `MemoryIdempotencyStore`, `RedisIdempotencyStore` or your own, checked with `idempotencyStoreSuite`)',
          defaultText: 'beside the built-in job store: memory, or Redis with `redis`',
        }),
        jobEvents: obj.optional().meta({
          description:
            'announcements of jobs ended or taken over (`JobEvents`: `announce`, `listen`, `close`), so a cancel made through one process stops the engine in another at once; give one with a custom `jobStore` shared by several processes (else they notice at their heartbeat)',
          defaultText: 'Redis pub/sub with `redis`, else within the process',
        }),
        blobStore: obj.optional().meta({
          description: 'your own `BlobStore` (run `blobStoreSuite` from `virtual-anchor/testing` on it); wins over `s3`',
          defaultText: 'filesystem under `dataDir`, or S3 with `s3`',
        }),
        queue: obj
          .optional()
          .meta({ description: 'a `JobQueue` of your own (run `queueSuite` from `virtual-anchor/testing` on it); replaces the `queue` choice; closed by the instance', defaultText: 'built-in (see `queue`)' }),
        lipSync: z
          .union([z.literal(false), obj])
          .optional()
          .meta({
            description:
              'your own engine, a configured built-in one from `virtual-anchor/engines` (`new CanvasLipSyncEngine(new OnnxMouthAnalyzer(), { encoder })`, see Encoding in `docs/models.md`), or `false` to disable (jobs then end in `error`)',
            defaultText: 'built-in engine (loaded lazily, only in processes that run jobs)',
          }),
        separation: z
          .union([z.literal(false), obj])
          .optional()
          .meta({
            description: 'your own engine, a configured built-in one from `virtual-anchor/engines`, or `false` to disable (jobs then end in `error`)',
            defaultText: 'built-in engine (loaded lazily, only in processes that run jobs)',
          }),
        avatarRenderer: z
          .union([z.literal(false), obj])
          .optional()
          .meta({ description: 'renders catalogue assets; `false` leaves them ungenerated', defaultText: 'built-in canvas renderer' }),
        faceDetector: z
          .union([z.literal(false), obj])
          .optional()
          .meta({
            description:
              'finds the face in a portrait at `POST /v2/avatar` (every role that serves the API); `false` turns photo avatars off (`POST /v2/avatar` answers 503)',
            defaultText: 'built-in (MediaPipe BlazeFace and Face Mesh on TensorFlow.js, loaded on first use)',
          }),
        photoRenderer: z
          .union([z.literal(false), obj])
          .optional()
          .meta({
            description: "renders photo avatars' idle clip, preview and thumbnail; `false`: their preparation ends in `error`",
            defaultText: 'built-in photo renderer',
          }),
        videoPreparer: z
          .union([z.literal(false), obj])
          .optional()
          .meta({
            description: "prepares video avatars' clips (their idle clip, face data, mouth atlas, preview and thumbnail); `false`: their preparation ends in `error`",
            defaultText: 'built-in (face tracking with the photo avatars\' face model, in a child process)',
          }),
        avatarStore: obj.optional().meta({
          description: 'where photo avatars are kept: your own `AvatarStore` (run `avatarStoreSuite` from `virtual-anchor/testing` on it)',
          defaultText: 'Redis when `redis` is set, else memory',
        }),
      })
      .strict()
      .prefault({}),
    jobKinds: z
      .array(obj)
      .default([])
      .describe('job kinds of your own (`defineKind`, see docs/architecture.md): each gets its routes, OpenAPI entries, webhooks, runs, recovery and metrics'),
    avatars: z
      .object({
        builtIn: z.boolean().default(true).describe('include the bundled avatars'),
        definitions: z.array(obj).default([]).describe('your own avatar definitions (format in `avatars/README.md`)'),
        directory: z.string().optional().describe('a folder of `*.json` avatar definitions to add'),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .refine((o) => (o.apiKeys && o.apiKeys.length > 0) || o.authenticate, {
    message: 'give `apiKeys` (a non-empty list) or an `authenticate` function',
    path: ['apiKeys'],
  })
  .refine((o) => o.queue !== 'bullmq' || o.redis, { message: 'the bullmq queue needs `redis`', path: ['queue'] })
  .refine((o) => o.role === 'all' || o.backends.queue || (o.redis && o.queue !== 'memory'), {
    message: 'role `api` or `worker` needs the bullmq queue (set `redis`): with the in-process queue the API and the workers cannot reach each other',
    path: ['role'],
  });

/** Options after validation and defaults; what the core works with. */
export interface ResolvedOptions
  extends Required<
    Pick<
      VirtualAnchorOptions,
      | 'basePath'
      | 'dataDir'
      | 'redisNamespace'
      | 'allowPrivateUrls'
      | 'dangerousFlagDelayMs'
      | 'shutdownTimeoutMs'
      | 'role'
      | 'queue'
      | 'maxAttempts'
    >
  > {
  redisTimeouts: Required<NonNullable<VirtualAnchorOptions['redisTimeouts']>>;
  authenticate: AuthenticateFn;
  publicUrl?: string;
  redis?: string;
  s3?: NonNullable<VirtualAnchorOptions['s3']>;
  signingSecret?: string;
  ffmpegPath?: string;
  ffprobePath?: string;
  concurrency: Required<Omit<NonNullable<VirtualAnchorOptions['concurrency']>, 'v2RequestsPerKey'>> & {
    v2RequestsPerKey: number;
  };
  limits: Required<NonNullable<VirtualAnchorOptions['limits']>>;
  /** Where the metrics are served, or `false` when they are off. */
  metrics: { path: string } | false;
  retention: Required<NonNullable<VirtualAnchorOptions['retention']>>;
  webhooks: Omit<Required<NonNullable<VirtualAnchorOptions['webhooks']>>, 'secret'> & { secret?: string };
  /** The job kinds of this instance: the built-in ones and `jobKinds`. */
  kinds: KindRegistry;
}

/**
 * Thrown by {@link createVirtualAnchor} when options are invalid, listing every problem; a feature that is on
 * without its port (see `backends`) makes start-up fail with one (`ready()` rejects with it).
 */
export class OptionsError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid virtual-anchor options:\n  - ${issues.join('\n  - ')}`);
    this.name = 'OptionsError';
  }
}
