import { z } from 'zod';
import { FRAME_SIZE_LIMITS } from '../../../domain/frame-size.js';
import { errorReasonSchema, progressSchema, fieldError, httpUrlField, jobStatusSchema, timestampSchema, uuidSchema } from '../../schemas/common.js';

/** One side of `dimension`: an even whole number of pixels within {@link FRAME_SIZE_LIMITS}. */
const frameSide = (name: 'width' | 'height') => {
  const { min, max } = FRAME_SIZE_LIMITS;
  const field = `dimension.${name}`;
  return z
    .number(fieldError(field, `${field} must be a number`))
    .int(`${field} must be a whole number`)
    .min(min, `${field} must be at least ${min}`)
    .max(max, `${field} must be at most ${max}`)
    .multipleOf(2, `${field} must be even`)
    .meta({ description: `Pixels, even, ${min} to ${max}`, multipleOf: 2 });
};

/** The video's frame size (extension); default 512×512. */
export const dimensionSchema = z
  .object(
    { width: frameSide('width'), height: frameSide('height') },
    fieldError('dimension', 'dimension must be an object { width, height }'),
  )
  .strict()
  .meta({
    id: 'Dimension',
    description:
      'Extension: the video frame size in pixels (each side even, 256 to 1920; default 512×512). The avatar is framed for it: head and shoulders centred and scaled to the shorter side; the backdrop or `backgroundUrl` covers the whole frame.',
  });

/** Body of POST /v2/2davatar. Unknown fields are rejected so typos do not pass silently. */
export const createAvatarVideoBodySchema = z
  .object({
    audioUrl: httpUrlField('audioUrl').meta({ description: 'Speech recording; reachable by the service, or a URL from POST /v1/uploads' }),
    avatarId: z.string(fieldError('avatarId', 'avatarId must be a string')).min(1, 'avatarId must not be empty').meta({ description: 'Avatar uid from GET /v2/avatar' }),
    backgroundUrl: httpUrlField('backgroundUrl').optional().meta({ description: 'Background image (png, jpeg, webp; at most 50 megapixels, read from its header: else 400 `not_image`) scaled to cover the frame' }),
    dimension: dimensionSchema.optional(),
    dangerousFlag: z.boolean(fieldError('dangerousFlag', 'dangerousFlag must be true or false')).optional().meta({ description: 'Test aid: the job ends in `error` 10 s after creation' }),
    webhookUrl: httpUrlField('webhookUrl').optional().meta({ description: 'Where to POST a signed event (Standard Webhooks) when the job reaches `completed` or `error`' }),
  })
  .strict()
  .meta({ id: 'CreateAvatarVideo' });

export type CreateAvatarVideoBody = z.infer<typeof createAvatarVideoBodySchema>;

const jobCore = {
  uid: uuidSchema,
  status: jobStatusSchema,
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
};

/** Creation response item (no `path`). */
export const avatarVideoCreatedSchema = z.object(jobCore).meta({ id: 'AvatarVideoCreated' });

/** List item and single fetch: adds `path` (empty string until completed). */
export const avatarVideoSchema = z
  .object({
    ...jobCore,
    path: z.string().meta({ description: 'Signed link to the mp4; empty string until completed' }),
    progress: progressSchema.optional(),
    errorReason: errorReasonSchema.optional(),
  })
  .meta({ id: 'AvatarVideo' });

export type AvatarVideoCreatedView = z.infer<typeof avatarVideoCreatedSchema>;
export type AvatarVideoView = z.infer<typeof avatarVideoSchema>;

/** Webhook event of an avatar video job: `data` is the job as GET /v2/2davatar/{id} answers it. */
export const webhookAvatarVideoEventSchema = z
  .object({ type: z.enum(['avatarVideo.completed', 'avatarVideo.error']), data: avatarVideoSchema })
  .meta({ id: 'AvatarVideoWebhookEvent' });
