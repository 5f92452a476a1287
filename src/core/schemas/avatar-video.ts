import { z } from 'zod';
import { errorReasonSchema, progressSchema, fieldError, httpUrlField, jobStatusSchema, timestampSchema, uuidSchema } from './common.js';

/** Body of POST /v2/2davatar. Unknown fields are rejected so typos do not pass silently. */
export const createAvatarVideoBodySchema = z
  .object({
    audioUrl: httpUrlField('audioUrl').meta({ description: 'Speech recording; reachable by the service, or a URL from POST /v1/uploads' }),
    avatarId: z.string(fieldError('avatarId', 'avatarId must be a string')).min(1, 'avatarId must not be empty').meta({ description: 'Avatar uid from GET /v2/avatar' }),
    backgroundUrl: httpUrlField('backgroundUrl').optional().meta({ description: 'Background image (png, jpeg, webp) scaled to cover the frame' }),
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
