/**
 * Stand-in engines for the browser test, so the page's flow is tested whatever state the built-in
 * engines are in. They write real media with ffmpeg (H.264 + AAC mp4; WAV stems), quickly.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EngineContext, LipSyncEngine, LipSyncInput, SeparationEngine, SeparationInput, SeparationOutput } from '../../src/index.js';
import type { FaceDetector, PhotoAvatarAssetRenderer } from '../../src/domain/engines.js';
import { NotAnImageError, type FaceDetection, type PhotoFace } from '../../src/domain/avatar/photo.js';

const run = promisify(execFile);
const ffmpeg = () => process.env.FFMPEG_PATH ?? 'ffmpeg';

/**
 * "Lip sync" that shows the speech's waveform on a plain background: a colour source plus the input
 * audio, H.264 (yuv420p) + AAC, as long as the audio (`-shortest`).
 */
export class WaveformLipSyncDouble implements LipSyncEngine {
  /** With a photo avatar (`input.photo`) the picture is the photo. */
  async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    const size = Math.min(input.avatar.width, 384);
    const waveHeight = Math.round(size / 2.4);
    const filter =
      `[1:a]aformat=channel_layouts=mono,showwaves=s=${size}x${waveHeight}:mode=cline:rate=25:scale=sqrt:colors=0xfde68a,format=rgba[w];` +
      `[0:v]scale=${size}:${size}:force_original_aspect_ratio=increase,crop=${size}:${size},setsar=1[b];` +
      `[b][w]overlay=0:${Math.round((size - waveHeight) / 2)}:shortest=1,format=yuv420p[v]`;
    await run(
      ffmpeg(),
      [
        '-y', '-v', 'error',
        ...(input.photo
          ? ['-loop', '1', '-framerate', '25', '-i', input.photo.imagePath]
          : ['-f', 'lavfi', '-i', `color=c=0x312e81:s=${size}x${size}:r=25`]),
        '-i', input.audioPath,
        '-filter_complex', filter,
        '-map', '[v]', '-map', '1:a',
        '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
        '-c:a', 'aac', '-b:a', '96k',
        '-shortest', '-movflags', '+faststart',
        input.outputPath,
      ],
      { signal: context.signal },
    );
  }
}

/** "Separation" by frequency: speech = above 300 Hz, ambience = below; both 16-bit WAV. */
export class FilterSeparationDouble implements SeparationEngine {
  calls = 0;

  async separate(input: SeparationInput, context: EngineContext): Promise<SeparationOutput> {
    this.calls++;
    await run(
      ffmpeg(),
      [
        '-y', '-v', 'error', '-i', input.audioPath, '-vn',
        '-filter_complex', '[0:a]asplit=2[a][b];[a]highpass=f=300[s];[b]lowpass=f=300[m]',
        '-map', '[s]', '-c:a', 'pcm_s16le', '-f', 'wav', input.speechPath,
        '-map', '[m]', '-c:a', 'pcm_s16le', '-f', 'wav', input.ambiencePath,
      ],
      { signal: context.signal },
    );
    return { contentType: 'audio/wav', extension: 'wav' };
  }
}

/** Width, height and codec of an image, by ffprobe. */
async function probeImage(path: string): Promise<{ width: number; height: number; codec: string } | undefined> {
  const ffprobe = process.env.FFPROBE_PATH ?? 'ffprobe';
  try {
    const { stdout } = await run(ffprobe, ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height,codec_name', '-of', 'json', path]);
    const stream = (JSON.parse(stdout) as { streams?: { width: number; height: number; codec_name: string }[] }).streams?.[0];
    return stream && { width: stream.width, height: stream.height, codec: stream.codec_name };
  } catch {
    return undefined;
  }
}

/** "Face detection" by shape: an upright or square image has one face, centred, 40 % of its height; a wide one none. */
export class ShapeFaceDetectorDouble implements FaceDetector {
  async detect(imagePath: string): Promise<FaceDetection> {
    const image = await probeImage(imagePath);
    if (!image || !['png', 'mjpeg', 'webp'].includes(image.codec)) throw new NotAnImageError();
    const { width, height } = image;
    if (width > height) return { imageWidth: width, imageHeight: height, faces: [] };
    const box = { x: width * 0.3, y: height * 0.3, width: width * 0.4, height: height * 0.4 };
    const points = Array.from({ length: 68 }, (_, i): [number, number] => [box.x + ((i % 17) / 16) * box.width, box.y + (Math.floor(i / 17) / 3) * box.height]);
    return { imageWidth: width, imageHeight: height, faces: [{ imageWidth: width, imageHeight: height, box, points, score: 0.9, model: 'shape-double' }] };
  }
}

/** Photo avatar assets from the photo itself with ffmpeg: square crops as PNG, and a still 2 s H.264 idle clip. */
export class StillPhotoRendererDouble implements PhotoAvatarAssetRenderer {
  async renderIdleVideo(face: PhotoFace, fps: number, outputPath: string, signal?: AbortSignal): Promise<void> {
    const square = 'scale=512:512:force_original_aspect_ratio=increase,crop=512:512,setsar=1,format=yuv420p';
    await run(
      ffmpeg(),
      ['-y', '-v', 'error', '-loop', '1', '-framerate', String(fps), '-i', face.imagePath, '-t', '2', '-vf', square, '-c:v', 'libx264', '-preset', 'veryfast', '-movflags', '+faststart', '-f', 'mp4', outputPath],
      { signal },
    );
  }

  renderPreview(face: PhotoFace, outputPath: string): Promise<void> {
    return this.still(face, 512, outputPath);
  }

  renderThumbnail(face: PhotoFace, outputPath: string): Promise<void> {
    return this.still(face, 128, outputPath);
  }

  private async still(face: PhotoFace, size: number, outputPath: string): Promise<void> {
    const square = `scale=${size}:${size}:force_original_aspect_ratio=increase,crop=${size}:${size}`;
    await run(ffmpeg(), ['-y', '-v', 'error', '-i', face.imagePath, '-vf', square, '-frames:v', '1', '-c:v', 'png', '-f', 'image2', outputPath]);
  }
}
