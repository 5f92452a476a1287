import type { z } from 'zod';
import type { BlobRef, Job, JobBase } from '../../domain/job.js';
import type { EngineContext } from '../../domain/engines.js';
import type { Logger } from '../../domain/logger.js';
import type { BlobStore } from '../../storage/blob-store.js';
import type { LinkBuilder } from '../links.js';
import type { ResolvedOptions } from '../options.js';
import type { InputRequest, ResolvedInput } from '../jobs/input-port.js';
import type { ExpectedMedia } from '../jobs/output-check.js';
import type { JobTimeout } from '../jobs/job-deadline.js';
import type { AvatarDirectory } from '../avatars/avatar-directory.js';

/**
 * Everything one kind of job is, in one place: its HTTP resource (request schema, views, routes, OpenAPI entries,
 * 404 label, webhook events), how it runs (the engine call and the files it makes), what happens to its results
 * and records, whether it resumes after a stop, its limits and its metric label. The core reads these entries
 * (routes, job service, runner, recovery, retention, webhooks, metrics, the OpenAPI document) and never branches on
 * a kind's name. The built-in kinds live in `src/core/kinds/<kind>/`, one registry line each
 * (`src/core/kinds/registry.ts`); a host adds its own with the `jobKinds` option.
 *
 * `J` is the kind's record type (`Job<'myKind', MyInput, MyResult>`), `B` the zod schema of its creation body.
 */
export interface KindSpec<J extends Job = Job, B extends z.ZodType = z.ZodType> {
  /** The records' `kind`: unique within an instance, and the key of the registry entry. */
  readonly kind: J['kind'];
  /** The HTTP resource: create, list, get and cancel routes. Absent for background work no route shows (`avatarPrepare`). */
  readonly api?: KindApi<J, B>;
  /**
   * Runs the job's engine in the job's work folder and names the files it made, by result name. The runner checks
   * each file (it exists, is not empty, probes as `expected`), stores them as blobs and completes the job with
   * them as its `result`; nothing is stored once the job was ended meanwhile. Throw a `JobFailedError` (or let the
   * engine throw) to end the job in `error`.
   */
  run(job: J, context: KindRunContext): Promise<KindOutputs<J>>;
  /**
   * Who keeps the result files: `retention` (deleted `retention.resultsMs` after completion: the API's jobs), or
   * `owner` (kept until the resource the job prepared deletes them: an avatar's assets).
   */
  readonly results: 'retention' | 'owner';
  /**
   * Fixed blob ids of the results, by name (default: fresh ids for each run). A run taken over after a crash then
   * finds what an earlier run stored under them and keeps it, so nothing is left behind that no run will use.
   * Required with `results: 'owner'`, whose expiry is cleared just before the job completes.
   */
  resultIds?(job: J): { [N in keyof NonNullable<J['result']>]: string };
  /**
   * How long a record lives: `expires` (default: `retention.recordsMs` after the job ended) or `kept` (until it is
   * deleted with what it belongs to; the record is the state of that resource, e.g. an avatar). A kind with kept
   * records sends no webhook.
   */
  readonly record?: 'expires' | 'kept';
  /**
   * Asked when a run has made its files, before the job completes: false when what the job prepares is gone (an
   * avatar deleted while its preparation ran elsewhere, by a process that could not end it). The job is then
   * dropped: its files and its record are deleted. Default: always wanted.
   */
  stillWanted?(job: J, services: KindServices): Promise<boolean>;
  /**
   * Whether a job of this kind resumes when the process running it stops (shutdown, crash) instead of ending in
   * `error`: a shutdown leaves it `ongoing` and marks it stopped, and recovery in any process hands it to a queue
   * again, up to `maxAttempts` runs. For work the client sees as a state of something else (an avatar's
   * preparation) and that is safe to run again. The API's own jobs end in `error` (`shutdown`, `interrupted`) as
   * the spec's state machine shows, unless a queue with retries hands them on.
   */
  readonly resumesAfterStop: boolean;
  /** The `kind` label of the job metrics (`virtual_anchor_jobs_total` and the others), unique among the kinds. Default: `kind`. */
  readonly metricLabel?: string;
  /** Limits of this kind that differ from the options' defaults. */
  limits?(options: ResolvedOptions): Partial<KindLimits>;
}

/** Limits of one kind of job. */
export interface KindLimits {
  /** How long a job may run: `baseMs` plus `perInputSecondMs` per second of input (default: `limits.jobTimeoutMs` and `limits.jobTimeoutPerInputSecondMs`). */
  timeout: JobTimeout;
}

/** A kind's HTTP resource: the four job routes (`POST` and `GET` on `path`, `GET path/:id`, `POST path/:id/cancel`). */
export interface KindApi<J extends Job = Job, B extends z.ZodType = z.ZodType> {
  /** Collection path, e.g. `/v2/2davatar`. */
  readonly path: string;
  /** The API family whose per-key request limit applies. */
  readonly family: 'v1' | 'v2';
  /** Name of the id in the item path (the spec's: `id`, `source_separation_id`). */
  readonly idName: string;
  /** The creation body's schema (validation and the OpenAPI document; unknown fields should be refused: `.strict()`). */
  readonly body: B;
  /** What a 404 names: `<notFound> not found` (e.g. `source separation`). */
  readonly notFound: string;
  /** Documentation: the resource's name and tag, and the schemas of its three response shapes. */
  readonly doc: KindDoc;
  /**
   * The kind's own fields of a new job from its validated body: its `input` (inputs resolved through
   * `creation.input`, so a refused request leaves no file), and any field of its record type beyond those every job
   * has. Throw an `ApiError` (400) to refuse it.
   */
  create(body: z.output<B>, creation: KindCreation): Promise<KindFields<J>>;
  /** The creation answer's item (the answer is a one-item array). */
  created(job: J): unknown;
  /** A list item; async because links may be presigned by the blob store. */
  listItem(job: J, links: LinkBuilder): Promise<unknown>;
  /** The job as GET and cancel answer it, and as its webhook event's `data`. */
  single(job: J, links: LinkBuilder): Promise<unknown>;
  /** The signed event POSTed to the job's `webhookUrl` when it ends; absent: the kind sends none (`webhookUrl` is refused). */
  readonly webhook?: KindWebhook;
}

/** Documentation of a kind's resource (OpenAPI summaries, tag and response schemas). */
export interface KindDoc {
  /** `an avatar video job` (summaries say "Create an avatar video job"). */
  one: string;
  /** `avatar video jobs` ("List avatar video jobs of this key"). */
  many: string;
  tag: string;
  /** More words for the creation's OpenAPI description. */
  createDescription?: string;
  created: z.ZodType;
  listItem: z.ZodType;
  single: z.ZodType;
}

/** The webhook of a kind: events `<type>.completed` and `<type>.error`, whose `data` is the job's single view. */
export interface KindWebhook {
  /** The event type's prefix, e.g. `sourceSeparation`. */
  readonly type: string;
  /** The OpenAPI `webhooks` entry's name and operation id, e.g. `sourceSeparationEnded`. */
  readonly name: string;
  /** Its summary. */
  readonly summary: string;
  /** The event's schema (`{ type, data }`), for the OpenAPI document. */
  readonly schema: z.ZodType;
}

/** What a kind's `create` may use. */
export interface KindCreation {
  /** The key's owner id (a hash of the API key). */
  owner: string;
  services: KindServices;
  /**
   * Turns a submitted URL into a local, probed blob (an upload of this key, or a download checked for type and
   * decoded duration): throws a 400 `ApiError` for bad input. A blob made for it is deleted when the creation
   * fails, and when the job ends.
   */
  input(request: Omit<InputRequest, 'owner'>): Promise<ResolvedInput>;
}

/** The kind's own fields of a new record: everything but what every job has (the job service sets those). */
export type KindFields<J extends Job> = Omit<J, keyof JobBase | 'kind' | 'result'>;

/** The core's services a kind may use while it creates or runs a job. */
export interface KindServices {
  options: ResolvedOptions;
  blobs: BlobStore;
  logger: Logger;
  /** The avatars the owner may use (the catalogue and the owner's own), for kinds that animate one. */
  avatars: AvatarDirectory;
  /**
   * The engine (or any backend) registered under `token` in the instance's container; `undefined` when there is
   * none (turned off with `false`, or a process that runs no engine).
   */
  engine<T>(token: symbol): T | undefined;
}

/** What a kind's `run` receives besides its job. */
export interface KindRunContext extends EngineContext {
  services: KindServices;
  /**
   * A local file of an input blob for the engine: the store's own file when it has one (filesystem), else a copy in
   * the work folder (S3). The job ends in `error` (`input_missing`) when the blob is gone.
   */
  localFile(blob: BlobRef, what: string): Promise<string>;
  /** The engine under `token`; the job ends in `error` (`engine_missing`, naming `what`) when there is none. */
  engine<T>(token: symbol, what: string): T;
}

/** A file an engine wrote, to check and store as one of the job's results. */
export interface OutputFile {
  path: string;
  /** What it is, in failure messages (`video`, `speech stem`). */
  what: string;
  /** What it must probe as. */
  expected: ExpectedMedia;
  /** Served with this MIME type. */
  contentType: string;
}

/** The files of a run, one per result name of the kind. */
export type KindOutputs<J extends Job> = { [N in keyof NonNullable<J['result']>]: OutputFile };

/** The record type of a kind spec. */
export type JobOf<S> = S extends KindSpec<infer J> ? J : never;

/** Checks a kind spec's types (the record's `kind` must be a literal) and returns it as it is. */
export function defineKind<J extends Job, B extends z.ZodType = z.ZodType>(spec: KindSpec<J, B>): KindSpec<J, B> {
  return spec;
}
