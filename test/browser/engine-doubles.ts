/**
 * Stand-in engines for the browser test, so the page's flow is tested whatever state the built-in
 * engines are in. They write real media with ffmpeg (H.264 + AAC mp4; WAV stems), quickly.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EngineContext, LipSyncEngine, LipSyncInput, SeparationEngine, SeparationInput, SeparationOutput } from '../../src/index.js';

const run = promisify(execFile);
const ffmpeg = () => process.env.FFMPEG_PATH ?? 'ffmpeg';

/**
 * "Lip sync" that shows the speech's waveform on a plain background: a colour source plus the input
 * audio, H.264 (yuv420p) + AAC, as long as the audio (`-shortest`).
 */
export class WaveformLipSyncDouble implements LipSyncEngine {
  calls = 0;

  async render(input: LipSyncInput, context: EngineContext): Promise<void> {
    this.calls++;
    const size = Math.min(input.avatar.width, 384);
    const waveHeight = Math.round(size / 2.4);
    const filter =
      `[1:a]aformat=channel_layouts=mono,showwaves=s=${size}x${waveHeight}:mode=cline:rate=25:scale=sqrt:colors=0xfde68a,format=rgba[w];` +
      `[0:v][w]overlay=0:${Math.round((size - waveHeight) / 2)}:shortest=1,format=yuv420p[v]`;
    await run(
      ffmpeg(),
      [
        '-y', '-v', 'error',
        '-f', 'lavfi', '-i', `color=c=0x312e81:s=${size}x${size}:r=25`,
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
