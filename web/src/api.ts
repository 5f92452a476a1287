/**
 * A small client for the public API, used by the demo page. Every request carries the `key` header;
 * nothing else is sent anywhere (the page loads no third-party code).
 */

import type { JobStatus } from './poll.js';

export type { JobStatus };

export interface ErrorReason {
  code: string;
  message: string;
}

export interface Avatar {
  uid: string;
  name: string;
  path: string;
  previewImagePath: string;
  thumbnailPath: string;
  thumbnailGenerationStatus?: 'pending' | 'completed' | 'error';
  createdAt: string;
  updatedAt: string;
}

export interface VideoJob {
  uid: string;
  status: JobStatus;
  path?: string;
  createdAt: string;
  updatedAt: string;
  errorReason?: ErrorReason;
}

export interface SeparationJob {
  uid: string;
  status: JobStatus;
  audioUri?: string;
  path?: { speech: string; ambience: string };
  createdAt: string;
  updatedAt: string;
  errorReason?: ErrorReason;
}

export interface Page<T> {
  page: number;
  perPage: number;
  total: number;
  nextPage: number | null;
  data: T[];
}

export interface Upload {
  url: string;
  uid: string;
  fileName: string;
  contentType: string;
  size: number;
  createdAt: string;
  expiresAt: string;
}

/** An error answer of the API (`{ error: { code, message, details } }`) or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** One readable sentence, with the field problems the service named. */
  describe(): string {
    const fields = this.details.map((d) => `${d.field.replace(/^body\./, '')}: ${d.message}`);
    return fields.length > 0 ? `${this.message} (${fields.join('; ')})` : this.message;
  }
}

interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

function toApiError(status: number, body: unknown): ApiError {
  const error = (body as ErrorBody | null)?.error;
  const code = typeof error?.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error?.message === 'string' ? error.message : `The service answered ${status}.`;
  const details = Array.isArray(error?.details)
    ? error.details.filter(
        (d): d is { field: string; message: string } =>
          typeof d === 'object' && d !== null && typeof d.field === 'string' && typeof d.message === 'string',
      )
    : [];
  if (status === 403 && code === 'forbidden') return new ApiError(status, code, 'The service did not accept this API key.', details);
  return new ApiError(status, code, message, details);
}

async function parse<T>(response: Response): Promise<T> {
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: fall through with the status alone
  }
  if (!response.ok) throw toApiError(response.status, body);
  return body as T;
}

export class Api {
  constructor(
    private readonly key: string,
    /** Where the API is mounted, '' for the same origin at the root. */
    private readonly base = '',
  ) {}

  private async request<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { key: this.key };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
      });
    } catch {
      throw new ApiError(0, 'network', 'The service could not be reached. Is the server still running?');
    }
    return parse<T>(response);
  }

  avatars(): Promise<Page<Avatar>> {
    return this.request('GET', '/v2/avatar?page=1&perPage=100');
  }

  videoJobs(): Promise<Page<VideoJob>> {
    return this.request('GET', '/v2/2davatar?page=1&perPage=20');
  }

  videoJob(uid: string): Promise<VideoJob> {
    return this.request('GET', `/v2/2davatar/${encodeURIComponent(uid)}`);
  }

  async createVideo(body: { audioUrl: string; avatarId: string; backgroundUrl?: string; dangerousFlag?: boolean }): Promise<VideoJob> {
    const created = await this.request<VideoJob[]>('POST', '/v2/2davatar', body);
    return created[0];
  }

  separations(): Promise<Page<SeparationJob>> {
    return this.request('GET', '/v1/sourceSeparations?page=1&perPage=20');
  }

  separation(uid: string): Promise<SeparationJob> {
    return this.request('GET', `/v1/sourceSeparations/${encodeURIComponent(uid)}`);
  }

  async createSeparation(audioUri: string): Promise<SeparationJob> {
    const created = await this.request<SeparationJob[]>('POST', '/v1/sourceSeparations', { audioUri });
    return created[0];
  }

  /** POST /v1/uploads (multipart, one part named `file`), reporting upload progress from 0 to 1. */
  upload(file: File, onProgress: (fraction: number) => void): Promise<Upload> {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${this.base}/v1/uploads`);
      xhr.setRequestHeader('key', this.key);
      xhr.upload.addEventListener('progress', (event) => {
        if (event.lengthComputable) onProgress(event.loaded / event.total);
      });
      xhr.addEventListener('load', () => {
        let body: unknown = undefined;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          // status alone
        }
        if (xhr.status >= 200 && xhr.status < 300 && body) resolve(body as Upload);
        else reject(toApiError(xhr.status, body));
      });
      xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'The upload was interrupted.')));
      const form = new FormData();
      form.append('file', file, file.name);
      xhr.send(form);
    });
  }
}
