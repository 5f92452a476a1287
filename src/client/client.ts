import { send, sendWithProgress, type TransportSettings } from './transport.js';
import { waitForFinal, type WaitOptions } from './wait.js';
import type {
  Avatar,
  AvatarListItem,
  AvatarVideo,
  AvatarVideoCreated,
  CreateAvatar,
  CreateAvatarVideo,
  CreateSourceSeparation,
  JobStatus,
  Page,
  SourceSeparation,
  SourceSeparationCreated,
  SourceSeparationListItem,
  Upload,
} from './types.js';

/** Options of {@link VirtualAnchorClient}. */
export interface ClientOptions {
  /** Where the API is mounted (the host's mount path plus `basePath`), e.g. `https://media.example.com/api`. `''` = this page's origin. */
  baseUrl: string;
  /** The API key (sent as the `key` header). */
  apiKey: string;
  /** A fetch implementation. Default: the global `fetch` (browsers, Node 18+, Deno, Bun). */
  fetch?: typeof fetch;
}

/** Per-call options: an `AbortSignal` cancels the request. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of calls that create something. */
export interface CreateOptions extends CallOptions {
  /**
   * Sent as the `Idempotency-Key` header: a retried creation with the same key and body answers the first
   * result instead of creating again (on service versions that support it; others ignore the header).
   */
  idempotencyKey?: string;
}

const idempotency = (options: CreateOptions) => (options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : undefined);

/** Paging of list calls. */
export interface ListOptions extends CallOptions {
  page?: number;
  perPage?: number;
}

/** Paging and a status filter of job lists. */
export interface JobListOptions extends ListOptions {
  status?: JobStatus;
}

const query = (params: Record<string, string | number | undefined>) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

const item = (id: string) => `/${encodeURIComponent(id)}`;

/** The calls every job collection has: create, get, list, cancel and wait for completion. */
export class JobCollection<Create, Created, Job extends { status: JobStatus }, ListItem> {
  constructor(
    private readonly settings: TransportSettings,
    /** The collection path, e.g. `/v2/2davatar`. */
    readonly path: string,
  ) {}

  /** Creates a job; the API answers a one-item array, this returns the item. */
  async create(body: Create, options: CreateOptions = {}): Promise<Created> {
    const headers = idempotency(options);
    const created = await send<Created[]>(this.settings, { method: 'POST', path: this.path, json: body, signal: options.signal, headers });
    return created[0]!;
  }

  /** One job of this key (404 `not_found` for another key's). */
  get(id: string, options: CallOptions = {}): Promise<Job> {
    return send<Job>(this.settings, { method: 'GET', path: this.path + item(id), signal: options.signal });
  }

  /** One page of this key's jobs, newest first. */
  list(options: JobListOptions = {}): Promise<Page<ListItem>> {
    const { page, perPage, status, signal } = options;
    return send<Page<ListItem>>(this.settings, { method: 'GET', path: this.path + query({ page, perPage, status }), signal });
  }

  /**
   * Cancels a pending or ongoing job: `POST <collection>/{id}/cancel`, answering the job (it ends in `error`
   * with `errorReason.code = "canceled"`); a finished job answers 409 `conflict`. Needs a service version with
   * the cancel routes; older ones answer 404.
   */
  cancel(id: string, options: CallOptions = {}): Promise<Job> {
    return send<Job>(this.settings, { method: 'POST', path: `${this.path}${item(id)}/cancel`, signal: options.signal });
  }

  /**
   * Polls the job until it is `completed` or `error` and returns it (a failed job is returned, not thrown),
   * with backoff (1 s growing to 15 s while nothing changes). Rejects when `signal` aborts, or on an error
   * that is not transient (transient ones, network, 429 and 5xx, go to `onError` and polling goes on).
   */
  waitForCompletion(id: string, options: WaitOptions<Job> = {}): Promise<Job> {
    return waitForFinal((signal) => this.get(id, { signal }), options);
  }
}

/**
 * A typed client of the virtual-anchor API. No Node-only imports: runs in browsers and in Node 18+ with the
 * global fetch.
 *
 * ```ts
 * const api = new VirtualAnchorClient({ baseUrl: 'http://localhost:3000', apiKey: 'k1' });
 * const job = await api.avatarVideos.create({ audioUrl, avatarId });
 * const done = await api.avatarVideos.waitForCompletion(job.uid);
 * ```
 * Errors: {@link VirtualAnchorApiError} (the API's error body) and {@link VirtualAnchorNetworkError}.
 */
export class VirtualAnchorClient {
  /** POST/GET /v2/2davatar, GET /v2/2davatar/{id}. */
  readonly avatarVideos: JobCollection<CreateAvatarVideo, AvatarVideoCreated, AvatarVideo, AvatarVideo>;
  /** POST/GET /v1/sourceSeparations, GET /v1/sourceSeparations/{id} (beta). */
  readonly sourceSeparations: JobCollection<CreateSourceSeparation, SourceSeparationCreated, SourceSeparation, SourceSeparationListItem>;
  /** GET/POST /v2/avatar, GET/DELETE /v2/avatar/{uid}. */
  readonly avatars: {
    /** The built-in avatars, then this key's photo avatars (newest first). */
    list(options?: ListOptions): Promise<Page<AvatarListItem>>;
    get(uid: string, options?: CallOptions): Promise<Avatar>;
    /**
     * Creates a photo avatar from a portrait (JPEG, PNG or WebP), or a video avatar from a clip of the person (MP4,
     * MOV, WebM or MKV, 3 s to 5 min): a file, sent as the multipart part `file` (told apart by its content), or
     * `{ imageUrl, name }` / `{ videoUrl, name }`. It answers once the face is found (400 `not_image`, `not_video`,
     * `too_short`, `too_long`, `no_face`, `face_too_small`; 413 too large); its assets are then made in the
     * background: poll `get` until `thumbnailGenerationStatus` is not `pending` (a clip the preparation refuses ends
     * in `error`, e.g. `face_lost`). A photo avatar is usable as `avatarId` at once, a video avatar once `completed`,
     * by this key only. With `idempotencyKey`, a retry with the same file (or body) and name answers the first avatar.
     */
    create(
      source: Blob | CreateAvatar,
      options?: CreateOptions & { name?: string; fileName?: string; onProgress?: (fraction: number) => void },
    ): Promise<AvatarListItem>;
    /** Deletes a photo avatar of this key and its files (videos made with it stay); built-in avatars answer 403. */
    delete(uid: string, options?: CallOptions): Promise<void>;
  };
  /** POST /v1/uploads and GET /v1/uploads/{id}. */
  readonly uploads: {
    /**
     * Uploads a file (one multipart part `file`); its `url` is usable as `audioUrl`/`audioUri`/`backgroundUrl`
     * by the same key for 24 h. `onProgress` (0 to 1) works in browsers.
     */
    create(file: Blob, options?: CreateOptions & { fileName?: string; onProgress?: (fraction: number) => void }): Promise<Upload>;
    get(id: string, options?: CallOptions): Promise<Upload>;
  };

  constructor(options: ClientOptions) {
    const settings: TransportSettings = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    };
    this.avatarVideos = new JobCollection(settings, '/v2/2davatar');
    this.sourceSeparations = new JobCollection(settings, '/v1/sourceSeparations');
    this.avatars = {
      list: ({ page, perPage, signal } = {}) => send(settings, { method: 'GET', path: `/v2/avatar${query({ page, perPage })}`, signal }),
      get: (uid, { signal } = {}) => send(settings, { method: 'GET', path: `/v2/avatar${item(uid)}`, signal }),
      create(source, options = {}) {
        const { name, fileName, onProgress, signal } = options;
        const headers = idempotency(options);
        if (!(source instanceof Blob)) return send(settings, { method: 'POST', path: '/v2/avatar', json: name === undefined ? source : { ...source, name }, signal, headers });
        const form = new FormData();
        if (name !== undefined) form.append('name', name);
        form.append('file', source, fileName ?? (source as Blob & { name?: string }).name ?? 'photo');
        const spec = { method: 'POST' as const, path: '/v2/avatar', form, signal, headers };
        return onProgress ? sendWithProgress<AvatarListItem>(settings, spec, onProgress) : send<AvatarListItem>(settings, spec);
      },
      delete: async (uid, { signal } = {}) => {
        await send(settings, { method: 'DELETE', path: `/v2/avatar${item(uid)}`, signal });
      },
    };
    this.uploads = {
      create(file, options = {}) {
        const { fileName, onProgress, signal } = options;
        const form = new FormData();
        const name = fileName ?? (file as Blob & { name?: string }).name ?? 'upload';
        form.append('file', file, name);
        const spec = { method: 'POST' as const, path: '/v1/uploads', form, signal, headers: idempotency(options) };
        return onProgress ? sendWithProgress<Upload>(settings, spec, onProgress) : send<Upload>(settings, spec);
      },
      get: (id, { signal } = {}) => send(settings, { method: 'GET', path: `/v1/uploads${item(id)}`, signal }),
    };
  }
}
