import { z } from 'zod';
import { timestampSchema, uuidSchema } from './common.js';

/** Values of `thumbnailGenerationStatus`. */
export const THUMBNAIL_STATUSES = ['pending', 'completed', 'error'] as const;

/** One avatar (GET /v2/avatar/:uid). Links are signed and expire; empty strings until generated. */
export const avatarSchema = z
  .object({
    uid: uuidSchema,
    name: z.string(),
    path: z.string().meta({ description: 'Signed link to the idle-loop mp4; empty string until generated' }),
    previewImagePath: z.string().meta({ description: 'Signed link to a PNG preview; empty string until generated' }),
    thumbnailPath: z.string().meta({ description: 'Signed link to a PNG thumbnail; empty string until generated' }),
    createdAt: timestampSchema,
    updatedAt: timestampSchema,
  })
  .meta({ id: 'Avatar' });

/** An avatar as listed (GET /v2/avatar): adds `thumbnailGenerationStatus`. */
export const avatarListItemSchema = avatarSchema
  .extend({ thumbnailGenerationStatus: z.enum(THUMBNAIL_STATUSES) })
  .meta({ id: 'AvatarListItem' });

export type AvatarView = z.infer<typeof avatarSchema>;
export type AvatarListItemView = z.infer<typeof avatarListItemSchema>;
