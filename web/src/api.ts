/**
 * What the demo page takes from the typed client (`virtual-anchor/client`, src/client, compiled into the page
 * by scripts/build-web.ts). Every request carries the `key` header; nothing is sent anywhere else.
 */
import {
  VirtualAnchorApiError,
  VirtualAnchorClient,
  VirtualAnchorNetworkError,
  type AvatarListItem,
  type AvatarVideo,
  type AvatarVideoCreated,
  type JobStatus,
  type SourceSeparation,
  type SourceSeparationListItem,
} from './client/index.js';

export { VirtualAnchorClient, isFinal } from './client/index.js';
export type { JobStatus };

/** An avatar as the picker shows it. */
export type Avatar = AvatarListItem;

/** A video job as created, listed or fetched (fields a creation answer lacks are optional). */
export type VideoJob = AvatarVideoCreated & Partial<AvatarVideo>;

/** A separation job as created, listed or fetched. */
export type SeparationJob = Pick<SourceSeparationListItem, 'uid' | 'status' | 'createdAt' | 'updatedAt'> & Partial<SourceSeparation>;

/** A client for the page's own origin (the example servers mount the API at the root). */
export function connectTo(key: string): VirtualAnchorClient {
  return new VirtualAnchorClient({ baseUrl: '', apiKey: key });
}

/** One readable sentence for an error of the client, with the field problems the service named. */
export function describeError(error: unknown): string {
  if (error instanceof VirtualAnchorNetworkError) return 'The service could not be reached. Is the server still running?';
  if (!(error instanceof VirtualAnchorApiError)) return String(error);
  if (error.status === 403 && error.code === 'forbidden') return 'The service did not accept this API key.';
  const fields = error.details.map((d) => `${d.field.replace(/^body\./, '')}: ${d.message}`);
  return fields.length > 0 ? `${error.message} (${fields.join('; ')})` : error.message;
}
