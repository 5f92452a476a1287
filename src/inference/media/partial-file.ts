/**
 * Audio files written aside and renamed when complete (encode-audio.ts, wav-writer.ts): a failure never leaves a file
 * at the output path, and the partial file is removed.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Logger } from '../../domain/logger.js';

/** A fresh path beside `outputPath` to write into, then to rename to `outputPath` once the file is complete. */
export function partialPathFor(outputPath: string): string {
  return `${outputPath}.partial-${randomBytes(4).toString('hex')}`;
}

/** Removes the partial file at `partial`, if any; a failure is reported to `logger` (default: the console), not thrown. */
export async function removePartial(partial: string, logger?: Pick<Logger, 'warn'>): Promise<void> {
  await rm(partial, { force: true }).catch((cleanupError: unknown) => {
    const warn = logger?.warn.bind(logger) ?? ((m: string, f?: object) => console.warn(`[virtual-anchor] ${m}`, f));
    warn('could not remove a partial audio file', { path: partial, error: String(cleanupError) });
  });
}
