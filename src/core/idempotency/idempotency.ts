import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { IdempotencyStore } from '../../storage/idempotency-store.js';
import { ApiError } from '../errors.js';
import type { HeaderMap, CoreResponse } from '../http/types.js';
import { json } from '../http/types.js';
import type { Logger } from '../../domain/logger.js';
import { inject, injectable } from '../injection.js';
import { TOKENS } from '../tokens.js';
import { SERVICES } from '../service-tokens.js';

/** The request header. */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Settings of {@link Idempotency}. */
export interface IdempotencySettings {
  /** How long an answer is replayed. Default 24 h. */
  ttlMs: number;
  /** How long a key stays reserved by a request that has not answered (a crashed one frees it then). */
  reserveMs: number;
  /** How long a duplicate waits for the first request's answer before answering 409 `conflict`. */
  waitMs: number;
  /** How often a waiting duplicate looks for the answer. */
  pollMs: number;
}

/** A request's idempotency key, checked: 1 to 255 printable ASCII characters. */
export function idempotencyKeyOf(headers: HeaderMap): string | undefined {
  const raw = headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (Array.isArray(raw) && raw.length > 1) throw invalidKey('send one Idempotency-Key header');
  if (value === undefined || !/^[\x20-\x7e]{1,255}$/.test(value)) throw invalidKey('Idempotency-Key must be 1 to 255 printable ASCII characters');
  return value;
}

function invalidKey(message: string): ApiError {
  return ApiError.badRequest('invalid_idempotency_key', message, [{ field: 'header.idempotency-key', message }]);
}

/** A fingerprint of what a request asks for: its route and its content (e.g. canonical JSON, or a file's hash and name). */
export function requestFingerprint(route: string, ...parts: string[]): string {
  const hash = createHash('sha256').update(route);
  for (const part of parts) hash.update('\u0000').update(part);
  return hash.digest('base64url');
}

/**
 * Makes creations safe to retry. A request carrying `Idempotency-Key` first reserves the key in the
 * {@link IdempotencyStore} (atomically, so of racing duplicates exactly one does the work); its 2xx answer is stored and replayed to
 * every later request of the same API key with the same key and the same fingerprint for `ttlMs`. A duplicate
 * that arrives while the first is still working waits for its answer (up to `waitMs`, then 409 `conflict` with
 * `retry-after`). The same key with another fingerprint answers 422 `idempotency_key_reused`. A request that
 * fails (any 4xx or 5xx, or a throw) frees the key, so a corrected retry runs afresh: only successes are replayed.
 * Keys are scoped per API key (the owner is part of the stored key).
 */
@injectable()
export class Idempotency {
  constructor(
    @inject(TOKENS.IdempotencyStore) private readonly store: IdempotencyStore,
    @inject(SERVICES.IdempotencySettings) private readonly settings: IdempotencySettings,
    @inject(TOKENS.Logger) private readonly logger: Logger,
  ) {}

  /**
   * Asks the store something harmless (frees a key nobody holds: one delete of a key that does not exist), for
   * readiness: rejects when the store does not answer.
   */
  async probe(): Promise<void> {
    await this.store.release(`readiness-probe-${randomUUID()}`);
  }

  /**
   * Runs `work` once per (owner, key, fingerprint): a repeat gets the stored answer (header `idempotent-replayed: true`).
   * `onReplay` runs when this request's own effects are redundant (e.g. delete the upload it stored).
   */
  async run(
    key: string | undefined,
    owner: string,
    fingerprint: string,
    work: () => Promise<CoreResponse>,
    onReplay?: () => Promise<void>,
  ): Promise<CoreResponse> {
    const { store } = this;
    if (key === undefined) return work();
    const storeKey = createHash('sha256').update(owner).update('\u0000').update(key).digest('base64url');
    const giveUpAt = Date.now() + this.settings.waitMs;
    for (;;) {
      const found = await store.reserve(storeKey, fingerprint, this.settings.reserveMs);
      if (found.state === 'reserved') return this.first(storeKey, fingerprint, work);
      if (found.fingerprint !== fingerprint) {
        await this.redundant(onReplay);
        throw new ApiError(422, 'idempotency_key_reused', 'this Idempotency-Key was used with another request; use a new key for a new request');
      }
      if (found.state === 'done') {
        await this.redundant(onReplay);
        return json(found.answer.status, found.answer.body, { 'idempotent-replayed': 'true' });
      }
      if (Date.now() >= giveUpAt) {
        await this.redundant(onReplay);
        throw new ApiError(409, 'conflict', 'a request with this Idempotency-Key is still being handled; retry shortly', undefined, { 'retry-after': '1' });
      }
      await sleep(this.settings.pollMs);
    }
  }

  /** The request holding the reservation: does the work, then stores a success or frees the key. */
  private async first(storeKey: string, fingerprint: string, work: () => Promise<CoreResponse>): Promise<CoreResponse> {
    let response: CoreResponse;
    try {
      response = await work();
    } catch (error) {
      await this.release(storeKey);
      throw error;
    }
    if (response.kind === 'json' && response.status >= 200 && response.status <= 299) {
      try {
        await this.store.save(storeKey, fingerprint, { status: response.status, body: response.body }, this.settings.ttlMs);
      } catch (error) {
        // The work is done and answered; only a replay is lost (a retry would create again).
        this.logger.error('could not store an idempotent answer; a retry with this key will not replay it', { error: String(error) });
      }
    } else {
      await this.release(storeKey);
    }
    return response;
  }

  /** Undoes this request's own effects when it does not run (a failure is logged: retention cleans up). */
  private async redundant(onReplay: (() => Promise<void>) | undefined): Promise<void> {
    try {
      await onReplay?.();
    } catch (error) {
      this.logger.warn('could not undo the effects of a repeated request; retention will', { error: String(error) });
    }
  }

  private async release(storeKey: string): Promise<void> {
    try {
      await this.store.release(storeKey);
    } catch (error) {
      this.logger.warn('could not free an idempotency key after a failed request; it frees itself when its reservation ends', { error: String(error) });
    }
  }
}
