import { readFile, stat } from 'node:fs/promises';
import type { MediaProbe } from '../../inference/media/index.js';
import { MediaProbeError } from '../../inference/media/index.js';
import { fsErrorCode } from '../../storage/fs-error-code.js';
import { JobFailedError } from './job-failure.js';
import { checkImageFile, ImageCheckError } from '../../inference/image/image-header.js';

/** Probes a local media file (ffprobe with the instance's binaries). */
export type ProbeFn = (path: string, signal: AbortSignal) => Promise<MediaProbe>;

/**
 * What an engine's output must be: an mp4 with a picture and a sound track, an mp4 with a picture (sound or
 * not: an avatar's idle clip), an audio file, a PNG image, or a JSON object (a video avatar's face data).
 */
export type ExpectedMedia = 'mp4-video' | 'mp4-picture' | 'audio' | 'png' | 'json';

function invalid(what: string, why: string): JobFailedError {
  return new JobFailedError({ code: 'invalid_output', message: `the engine's ${what} is not usable: ${why}` });
}

/**
 * Checks an engine's output before the job may complete: the file exists, is not empty and probes as
 * the expected media. Throws a {@link JobFailedError} with code `invalid_output` otherwise.
 */
export async function verifyOutput(path: string, expected: ExpectedMedia, what: string, probe: ProbeFn, signal: AbortSignal): Promise<void> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw invalid(what, 'it is not a file');
    size = info.size;
  } catch (error) {
    if (fsErrorCode(error) === 'ENOENT') throw invalid(what, 'the engine finished without writing it');
    throw error;
  }
  if (size === 0) throw invalid(what, 'the file is empty');
  if (expected === 'json') {
    const text = await readFile(path, 'utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw invalid(what, 'it is not JSON');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(what, 'it is not a JSON object');
    return;
  }
  if (expected === 'png') {
    // The header walk the decoders' inputs get: a PNG signature and a readable IHDR.
    const header = await checkImageFile(path).catch((error: unknown) => {
      if (error instanceof ImageCheckError) return undefined;
      throw error;
    });
    if (header?.format !== 'png') throw invalid(what, 'it is not a PNG image');
    return;
  }
  let media: MediaProbe;
  try {
    media = await probe(path, signal);
  } catch (error) {
    if (error instanceof MediaProbeError) throw invalid(what, error.message);
    throw error;
  }
  if (expected === 'audio') {
    if (!media.audio) throw invalid(what, 'it has no audio stream');
    return;
  }
  if (media.container !== 'mp4') throw invalid(what, `it is not an mp4 file (found ${media.formatNames.join(',') || 'unknown'})`);
  if (!media.video || media.video.attachedPic) throw invalid(what, 'it has no video stream');
  if (expected === 'mp4-video' && !media.audio) throw invalid(what, 'it has no audio stream');
}
