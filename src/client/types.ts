/**
 * The shapes the API answers and accepts, for the typed client: aliases of the types openapi-typescript
 * generates from the service's own OpenAPI document (./openapi-types.ts, written by scripts/client-types.ts),
 * which is built from the zod schemas the service validates with, so they cannot drift from them. Types only:
 * the client imports neither zod nor openapi-typescript, so it stays small and runs in browsers.
 */
import type { components, operations } from './openapi-types.js';

type Schemas = components['schemas'];

/** The four states of a job; `completed` and `error` are final. */
export type JobStatus = Schemas['AvatarVideo']['status'];

/** Why a job ended in `error` (extension field, present only then). */
export type ErrorReason = NonNullable<Schemas['AvatarVideo']['errorReason']>;

/** What GET /v2/avatar answers: one page of avatars. */
type AvatarPage = operations['getV2Avatar']['responses'][200]['content']['application/json'];

/** The paginated envelope of every list. */
export interface Page<T> extends Omit<AvatarPage, 'data'> {
  data: T[];
}

/** Whether an avatar's idle clip, preview and thumbnail exist: `pending`, then `completed` or `error`. */
export type ThumbnailGenerationStatus = Schemas['AvatarListItem']['thumbnailGenerationStatus'];

/**
 * One avatar (GET /v2/avatar/{uid}); links are signed and expire. A photo avatar also carries
 * `thumbnailGenerationStatus` (and `errorReason` once it is `error`).
 */
export type Avatar = Schemas['Avatar'];

/** An avatar as listed (GET /v2/avatar) and as created (POST /v2/avatar). */
export type AvatarListItem = Schemas['AvatarListItem'];

/** Body of POST /v2/avatar as JSON: a JPEG, PNG or WebP portrait at a URL (an upload URL of the same key works). */
export type CreateAvatar = Schemas['CreateAvatar'];

/** Body of POST /v2/2davatar. */
export type CreateAvatarVideo = Schemas['CreateAvatarVideo'];

/** A video frame size in pixels (`dimension` of POST /v2/2davatar). */
export type Dimension = Schemas['Dimension'];

/** What POST /v2/2davatar answers for the created job. */
export type AvatarVideoCreated = Schemas['AvatarVideoCreated'];

/** An avatar video job (GET /v2/2davatar/{id} and list items). */
export type AvatarVideo = Schemas['AvatarVideo'];

/** Body of POST /v1/sourceSeparations. */
export type CreateSourceSeparation = Schemas['CreateSourceSeparation'];

/** Signed links to the two stems; empty strings until completed. */
export type SeparationPaths = Schemas['SeparationPaths'];

/** What POST /v1/sourceSeparations answers for the created job. */
export type SourceSeparationCreated = Schemas['SourceSeparationCreated'];

/** A source separation as listed (no `audioUri`, no `taskId`). */
export type SourceSeparationListItem = Schemas['SourceSeparationListItem'];

/** A source separation job (GET /v1/sourceSeparations/{id}). */
export type SourceSeparation = Schemas['SourceSeparation'];

/** An upload (POST /v1/uploads, GET /v1/uploads/{id}). */
export type Upload = Schemas['Upload'];

/** The body of every error answer. */
export type ErrorBody = Schemas['Error'];

/** The event POSTed to the `webhookUrl` of an avatar video job when it ends (verify it with `verifyWebhook`). */
export type AvatarVideoWebhookEvent = Schemas['AvatarVideoWebhookEvent'];

/** The event POSTed to the `webhookUrl` of a source separation when it ends. */
export type SourceSeparationWebhookEvent = Schemas['SourceSeparationWebhookEvent'];
