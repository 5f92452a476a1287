import { z } from 'zod';
import { errorReasonSchema, fieldError, httpUrlField, timestampSchema, uuidSchema } from './common.js';
import { PHOTO_AVATAR_STATUSES } from '../../domain/avatar/photo-avatar.js';

/** Values of `thumbnailGenerationStatus`. */
export const THUMBNAIL_STATUSES = PHOTO_AVATAR_STATUSES;

const thumbnailStatusSchema = z
  .enum(THUMBNAIL_STATUSES)
  .meta({ description: '`pending` while the idle clip, preview and thumbnail are made, then `completed`, or `error` (see `errorReason`)' });

const avatarFields = {
  uid: uuidSchema,
  name: z.string(),
  path: z.string().meta({ description: 'Signed link to the idle-loop mp4; empty string until generated' }),
  previewImagePath: z.string().meta({ description: 'Signed link to a PNG preview; empty string until generated' }),
  thumbnailPath: z.string().meta({ description: 'Signed link to a PNG thumbnail; empty string until generated' }),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
};

/**
 * One avatar (GET /v2/avatar/:uid). Links are signed and expire; empty strings until generated. A photo avatar
 * also carries `thumbnailGenerationStatus` (and `errorReason` once it is `error`), so its preparation can be polled.
 */
export const avatarSchema = z
  .object({
    ...avatarFields,
    thumbnailGenerationStatus: thumbnailStatusSchema.optional().meta({ description: 'Photo avatars only (extension)' }),
    errorReason: errorReasonSchema.optional(),
  })
  .meta({ id: 'Avatar' });

/** An avatar as listed (GET /v2/avatar) and as created (POST /v2/avatar): `thumbnailGenerationStatus` always. */
export const avatarListItemSchema = z
  .object({ ...avatarFields, thumbnailGenerationStatus: thumbnailStatusSchema, errorReason: errorReasonSchema.optional() })
  .meta({ id: 'AvatarListItem' });

/** The name of a photo avatar: 1 to 100 characters after trimming. */
export const avatarNameSchema = z
  .string(fieldError('name', 'name must be a string'))
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .meta({ description: 'Avatar name (default: the file name without extension, or "Photo avatar")' });

/**
 * Body of POST /v2/avatar as JSON: a portrait or a person's clip at a URL (the same rules as job inputs; an upload URL
 * of this key works): exactly one of `imageUrl` and `videoUrl`.
 */
export const createAvatarBodySchema = z
  .object({
    imageUrl: httpUrlField('imageUrl').optional().meta({ description: 'A JPEG, PNG or WebP portrait (a photo avatar); reachable by the service, or a URL from POST /v1/uploads' }),
    videoUrl: httpUrlField('videoUrl')
      .optional()
      .meta({ description: 'A clip of the person (MP4, MOV, WebM or MKV; a video avatar, extension); reachable by the service, or a URL from POST /v1/uploads' }),
    name: avatarNameSchema.optional(),
  })
  .strict()
  .superRefine((body, context) => {
    if ((body.imageUrl === undefined) === (body.videoUrl === undefined)) {
      context.addIssue({ code: 'custom', path: [body.imageUrl === undefined ? 'imageUrl' : 'videoUrl'], message: 'give exactly one of imageUrl and videoUrl' });
    }
  })
  .meta({ id: 'CreateAvatar' });

export type AvatarView = z.infer<typeof avatarSchema>;
export type AvatarListItemView = z.infer<typeof avatarListItemSchema>;
