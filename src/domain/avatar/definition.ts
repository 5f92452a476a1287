import { z } from 'zod';
import { avatarLookSchema, type AvatarLook } from './look.js';

/**
 * A declarative 2D avatar: identity, output size, frame rate and the {@link AvatarLook} the
 * renderer draws. Unknown keys pass through. `avatars/README.md` documents the format.
 */
export const avatarDefinitionSchema = z
  .object({
    /** Stable identifier; the avatar's UUID is derived from it, so it stays the same across restarts. */
    id: z.string().min(1).max(64).regex(/^[a-z0-9][a-z0-9-]*$/),
    name: z.string().min(1).max(100),
    width: z.number().int().min(64).max(2048).default(512),
    height: z.number().int().min(64).max(2048).default(512),
    fps: z.number().int().min(10).max(60).default(25),
    /** How the avatar looks; absent means the default look (see {@link lookOf}). */
    look: avatarLookSchema.optional(),
  })
  .passthrough();

export type AvatarDefinition = z.infer<typeof avatarDefinitionSchema>;
export type { AvatarLook } from './look.js';

/** The default look, used for definitions without `look`. */
export const DEFAULT_LOOK: AvatarLook = avatarLookSchema.parse({});

/** The look to draw for `definition`: its own, or {@link DEFAULT_LOOK}. */
export function lookOf(definition: AvatarDefinition): AvatarLook {
  return definition.look ?? DEFAULT_LOOK;
}

/** An avatar definition as written by an operator (defaults not yet applied). */
export type AvatarDefinitionInput = z.input<typeof avatarDefinitionSchema>;
