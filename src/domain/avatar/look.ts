import { z } from 'zod';

/**
 * The look of a 2D avatar: every visual choice the drawing code reads. Each field has a default,
 * so `{}` is a valid (plain) look; `avatars/README.md` documents every field.
 */

/** A CSS hex colour: `#rgb` or `#rrggbb`. */
export const hexColorSchema = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'expected a hex colour like #a1b2c3');

/** A relative size factor around 1. */
const factor = (min: number, max: number) => z.number().min(min).max(max).default(1);

/** Head outline and size. */
export const headLookSchema = z.object({
  shape: z.enum(['oval', 'round', 'square', 'heart']).default('oval'),
  width: factor(0.8, 1.2),
  height: factor(0.8, 1.2),
});

/** Skin colours. */
export const skinLookSchema = z.object({
  tone: hexColorSchema.default('#f2c7a5'),
  /** Shadow colour (under the chin, ears, nose); derived from `tone` when absent. */
  shadow: hexColorSchema.optional(),
  /** Cheek blush; none when absent. */
  blush: hexColorSchema.optional(),
});

/** Hair style and colours. */
export const hairLookSchema = z.object({
  style: z.enum(['short', 'bob', 'long', 'bun', 'curly', 'bald']).default('short'),
  color: hexColorSchema.default('#4a3020'),
  /** Sheen stroke colour; derived from `color` when absent. */
  highlight: hexColorSchema.optional(),
});

/** Eyes. */
export const eyesLookSchema = z.object({
  shape: z.enum(['almond', 'round']).default('almond'),
  iris: hexColorSchema.default('#5b3a22'),
  size: factor(0.8, 1.3),
  spacing: factor(0.8, 1.2),
  lashes: z.boolean().default(false),
});

/** Eyebrows. */
export const browsLookSchema = z.object({
  /** Derived from the hair colour when absent. */
  color: hexColorSchema.optional(),
  thickness: factor(0.5, 2),
  /** 0 straight, 1 strongly arched. */
  arch: z.number().min(0).max(1).default(0.4),
});

/** Nose. */
export const noseLookSchema = z.object({
  style: z.enum(['button', 'soft', 'pointed']).default('soft'),
});

/** Lips. */
export const lipsLookSchema = z.object({
  color: hexColorSchema.default('#c46a6a'),
  fullness: factor(0.6, 1.5),
});

/** Clothing on the shoulders. */
export const clothingLookSchema = z.object({
  style: z.enum(['tshirt', 'turtleneck', 'blazer', 'hoodie']).default('tshirt'),
  color: hexColorSchema.default('#3f6fb5'),
  /** Second colour: shirt under a blazer, neckline trim, hoodie strings. */
  accent: hexColorSchema.default('#ffffff'),
});

/** Glasses; none when the field is absent. */
export const glassesLookSchema = z.object({
  shape: z.enum(['round', 'square']).default('round'),
  color: hexColorSchema.default('#2b2b2b'),
});

/** Opaque backdrop behind the avatar in videos without a background image (vertical gradient). */
export const backdropLookSchema = z.object({
  top: hexColorSchema.default('#e8eef6'),
  bottom: hexColorSchema.default('#c5d3e6'),
});

/** Idle animation (blinks, breathing, head motion); deterministic per frame index. */
export const idleLookSchema = z.object({
  /** Mean seconds between blinks. */
  blinkEvery: z.number().min(1.5).max(10).default(3.5),
  /** Breathing amplitude, 0 none. */
  breath: z.number().min(0).max(1).default(0.5),
  /** Head motion amplitude, 0 none. */
  sway: z.number().min(0).max(1).default(0.5),
});

/** The whole look; every part defaults. */
export const avatarLookSchema = z.object({
  skin: skinLookSchema.prefault({}),
  head: headLookSchema.prefault({}),
  hair: hairLookSchema.prefault({}),
  eyes: eyesLookSchema.prefault({}),
  brows: browsLookSchema.prefault({}),
  nose: noseLookSchema.prefault({}),
  lips: lipsLookSchema.prefault({}),
  clothing: clothingLookSchema.prefault({}),
  glasses: glassesLookSchema.optional(),
  /** Earring colour; none when absent. */
  earrings: hexColorSchema.optional(),
  backdrop: backdropLookSchema.prefault({}),
  idle: idleLookSchema.prefault({}),
});

/** A parsed look with all defaults applied. */
export type AvatarLook = z.infer<typeof avatarLookSchema>;
