import { basename, extname } from 'node:path';
import { z } from 'zod';
import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { isJson, readJson } from '../http/read-json.js';
import { ApiError } from '../errors.js';
import { avatarListItemSchema, avatarNameSchema, createAvatarBodySchema } from '../schemas/avatar.js';
import { ownedAvatarView } from '../avatars/avatar-views.js';
import { photoAvatarsOff, type ReceivedPhoto } from '../avatars/photo-avatar-service.js';
import type { ReceivedClip } from '../avatars/video-avatar-service.js';
import { blobHead, isVideoContainer } from '../avatars/clip-sniff.js';
import { tooLargeText } from '../input/limit-text.js';
import type { ApiDeps } from './deps.js';
import { MAX_LANDMARK_SPREAD, MIN_FACE_HEIGHT_PX } from '../../domain/avatar/photo.js';
import { canonicalJson } from '../idempotency/canonical-json.js';
import { idempotencyKeyOf, requestFingerprint } from '../idempotency/idempotency.js';
import { IDEMPOTENCY_HEADER_DOC, IDEMPOTENT_REPLAYED_DOC } from './idempotency-doc.js';

const DEFAULT_NAME = 'Photo avatar';
const DEFAULT_VIDEO_NAME = 'Video avatar';
/** The multipart `name` field, validated as the JSON body's `name`. */
const nameFieldSchema = z.object({ name: avatarNameSchema });

/** The default name of an uploaded portrait or clip: its file name without extension. */
function nameFromFile(fileName: string, fallback: string): string {
  const base = basename(fileName, extname(fileName)).trim().slice(0, 100).trim();
  return base && base !== 'upload' ? base : fallback;
}

/** POST /v2/avatar (a photo avatar from a portrait, a video avatar from a person's clip) and DELETE /v2/avatar/:uid. */
export function photoAvatarRoutes(deps: ApiDeps): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/v2/avatar',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'Create a photo avatar from a portrait, or a video avatar from a clip of the person (extension)',
        description: [
          'A multipart body with a `file` part (a JPEG, PNG or WebP portrait, or an MP4, MOV, WebM or MKV clip: told apart by content) and an optional `name` field, or JSON `{ imageUrl, name }` or `{ videoUrl, name }` (the same URL rules as job inputs; an upload URL of this key works).',
          `A clip (docs/video-avatars.md) is checked before the answer: not a readable video (sound only, a still, a corrupt file) → 400 \`not_video\`; its length from its packets under \`limits.minAvatarVideoSec\` (3 s) → 400 \`too_short\`, over \`limits.maxAvatarVideoSec\` (300 s) → 400 \`too_long\`; the face in one of its frames as for a portrait (\`no_face\`, \`face_too_small\`); over \`limits.maxAvatarVideoBytes\` → 413. Its preparation (every frame's face, the mouth atlas, the loop) then runs in the background and ends in \`error\` with \`errorReason.code\` \`face_lost\` (the face missing or turned away in over 10 % of it, the seconds named), \`too_short\` or \`too_long\` (decoded), or \`no_face\`/\`face_too_small\`; a video avatar makes videos once \`completed\`.`,
          `The face is found before the answer: several faces → the largest is animated; none → 400 \`no_face\`; its box lower than ${MIN_FACE_HEIGHT_PX} px and its landmarks not sure (looked at again, upscaled, they lie over ${MAX_LANDMARK_SPREAD * 100} % of the eye distance apart) → 400 \`face_too_small\`; not an image → 400 \`not_image\`; over \`limits.maxPhotoBytes\` → 413.`,
          'Detections run one at a time, keys taking turns: with `limits.maxQueuedPhotosPerKey` photos of this key already waiting, one more is 429 `too_many_requests` with `Retry-After` (seconds).',
          'The idle clip, preview and thumbnail are then made in the background: `thumbnailGenerationStatus` is `pending`, then `completed` (links filled) or `error` (`errorReason`).',
          'The avatar belongs to this key: listed with the built-in ones, usable as `avatarId`, 404 for every other key.',
        ].join(' '),
        tag: 'Avatars',
        body: [
          {
            contentType: 'multipart/form-data',
            schema: {
              type: 'object',
              properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' }, name: { type: 'string', maxLength: 100 } },
              required: ['file'],
            },
          },
          { contentType: 'application/json', schema: createAvatarBodySchema },
        ],
        headers: IDEMPOTENCY_HEADER_DOC,
        responses: {
          201: {
            description: 'Created; `thumbnailGenerationStatus` is `pending` (with `Idempotency-Key`: the first answer again for the same photo and name)',
            body: { contentType: 'application/json', schema: avatarListItemSchema },
            headers: IDEMPOTENT_REPLAYED_DOC,
          },
        },
        errors: [400, 409, 413, 415, 422],
      },
      async handle({ request, owner, baseUrl }) {
        // Refused before the body is read: ask the client to drop the connection rather than send it all.
        if (!deps.photoAvatars.enabled) {
          throw photoAvatarsOff({ connection: 'close' });
        }
        const key = idempotencyKeyOf(request.headers);
        const create = async (photo: ReceivedPhoto, name: string) =>
          json(201, await ownedAvatarView(await deps.photoAvatars.create(owner, photo, name, request.signal), deps.links(baseUrl)));
        const createVideo = async (clip: ReceivedClip, name: string) =>
          json(201, await ownedAvatarView(await deps.videoAvatars.create(owner, clip, name, request.signal), deps.links(baseUrl)));
        if (isJson(request)) {
          // A repeat is recognised by its body, before the image is fetched again.
          const raw = await readJson(request, deps.maxJsonBytes);
          return deps.idempotency.run(key, owner, requestFingerprint('POST /v2/avatar', canonicalJson(raw)), async () => {
            const body = validate(createAvatarBodySchema, raw, 'body');
            if (body.videoUrl !== undefined) {
              const input = await deps.videoInputs.resolve({ url: body.videoUrl, owner, kind: 'video', field: 'videoUrl', signal: request.signal });
              return createVideo({ blob: input.blob, madeHere: input.scratch, field: 'body.videoUrl', probe: input.probe }, body.name ?? DEFAULT_VIDEO_NAME);
            }
            const input = await deps.photoInputs.resolve({ url: body.imageUrl!, owner, kind: 'image', field: 'imageUrl', signal: request.signal });
            return create({ blob: input.blob, madeHere: input.scratch, field: 'body.imageUrl' }, body.name ?? DEFAULT_NAME);
          });
        }
        // The file is stored first (hashed while it streams); a repeat then deletes its copy and replays. A portrait or
        // a clip, told apart by its first bytes.
        const upload = await deps.avatarUploads.receive(request.bodyStream, request.headers, owner);
        let name: string;
        let video: boolean;
        try {
          video = isVideoContainer(await blobHead(deps.blobs, upload.blob.id));
          if (!video && (upload.blob.size ?? 0) > deps.maxPhotoBytes) {
            throw new ApiError(413, 'too_large', tooLargeText('the file', upload.blob.size, deps.maxPhotoBytes, 'limits.maxPhotoBytes'), [{ field: 'body.file', message: 'send a portrait of at most this size' }]);
          }
          const fallback = video ? DEFAULT_VIDEO_NAME : DEFAULT_NAME;
          name = upload.fields.name === undefined ? nameFromFile(upload.fileName, fallback) : validate(nameFieldSchema, { name: upload.fields.name }, 'body').name;
        } catch (error) {
          await deps.blobs.delete(upload.blob.id).catch(() => undefined);
          throw error;
        }
        const received = { blob: upload.blob, madeHere: true, field: 'body.file' };
        const fingerprint = requestFingerprint('POST /v2/avatar', upload.sha256, name, upload.blob.contentType);
        const make = video ? () => createVideo(received, name) : () => create(received, name);
        return deps.idempotency.run(key, owner, fingerprint, make, () => deps.blobs.delete(upload.blob.id));
      },
    },
    {
      method: 'DELETE',
      pattern: '/v2/avatar/:uid',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'Delete a photo avatar of this key and its files (extension); videos already made stay',
        tag: 'Avatars',
        responses: { 204: { description: 'Deleted' } },
        errors: [403, 404],
      },
      async handle({ params, owner }) {
        if (deps.catalogue.get(params.uid!)) throw new ApiError(403, 'built_in_avatar', 'built-in avatars cannot be deleted');
        await deps.ownedAvatars.delete(params.uid!, owner);
        return { status: 204, headers: {}, kind: 'empty' };
      },
    },
  ];
}
