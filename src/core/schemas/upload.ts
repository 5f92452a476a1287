import { z } from 'zod';
import { timestampSchema } from './common.js';

/** Response of POST /v1/uploads. */
export const uploadSchema = z
  .object({
    url: z.string().meta({ description: 'Private URL usable as audioUrl / audioUri / backgroundUrl by the same key' }),
    uid: z.string().meta({ description: 'Upload id (the last segment of `url`)' }),
    fileName: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    createdAt: timestampSchema,
    expiresAt: timestampSchema,
  })
  .meta({ id: 'Upload' });

export type UploadView = z.infer<typeof uploadSchema>;
