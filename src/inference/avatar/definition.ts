import { z } from 'zod';

/**
 * A declarative 2D avatar. The drawing module (issue: built-in lip-sync) extends this schema with
 * the look (head, hair, eyes, skin, clothing); the core only needs `id`, `name`, size and frame rate.
 */
export const avatarDefinitionSchema = z
  .object({
    /** Stable identifier; the avatar's UUID is derived from it, so it stays the same across restarts. */
    id: z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9-]*$/),
    name: z.string().min(1).max(100),
    width: z.number().int().min(64).max(2048).default(512),
    height: z.number().int().min(64).max(2048).default(512),
    fps: z.number().int().min(10).max(60).default(25),
  })
  .passthrough();

export type AvatarDefinition = z.infer<typeof avatarDefinitionSchema>;
