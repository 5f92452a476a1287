/**
 * The built-in {@link MouthTrackAnalyzer}: ffmpeg decodes any input to 16 kHz mono float PCM
 * (streamed), log-mel features are computed on the fly, the ONNX viseme model runs in 10 s chunks
 * and the posteriors become one mouth shape per video frame (see mouth-track.ts).
 * Memory: the features (16 KB per second) and posteriors (3.6 KB per second), never the audio.
 */
import type { Readable } from 'node:stream';
import { decodeAudio, probeMedia, resolveMediaBinaries, type MediaBinaries } from '../media/index.js';
import { LogMelExtractor, N_MELS, SAMPLE_RATE } from './features.js';
import type { MouthShape, MouthTrackAnalyzer } from './mouth.js';
import { mouthTrack, videoFrameCount, type MouthTrackOptions } from './mouth-track.js';
import { VisemeModel, type ChunkOptions } from './viseme-model.js';

/** Options of {@link OnnxMouthAnalyzer}; all have defaults. */
export interface OnnxMouthAnalyzerOptions {
  /** Path or file URL of the ONNX model (default: the one shipped in models/lipsync/). */
  modelPath?: string | URL;
  /** ffmpeg/ffprobe; resolved with {@link resolveMediaBinaries} on first use when absent. */
  binaries?: MediaBinaries;
  /** How posteriors become mouth shapes (filter time constants, sharpening, closure threshold). */
  mouth?: MouthTrackOptions;
  /** How long inputs are cut into model runs (bounded memory for 5-minute inputs). */
  chunks?: ChunkOptions;
  /**
   * Where `duration` in `ceil(duration * fps)` comes from: `'probe'` (default) uses ffprobe's
   * container duration — the one the rest of the pipeline renders with — falling back to the
   * decoded length; `'decoded'` uses the number of decoded samples. They differ by a few ms for
   * lossy formats (encoder delay/padding).
   */
  duration?: 'probe' | 'decoded';
}

/** What the analysis produced, for callers that want more than the shapes (bench, debugging). */
export interface MouthAnalysis {
  shapes: MouthShape[];
  /** `[frames * 9]` viseme posteriors at 100 frames/s. */
  posteriors: Float32Array;
  frames: number;
  /** Duration used for the frame count (see {@link OnnxMouthAnalyzerOptions.duration}). */
  durationSec: number;
  /** Decoded audio length in seconds. */
  decodedSec: number;
}

/** The built-in {@link MouthTrackAnalyzer}: the viseme model shipped in models/lipsync/ (see the module comment). */
export class OnnxMouthAnalyzer implements MouthTrackAnalyzer {
  private binaries?: Promise<MediaBinaries>;

  constructor(private readonly options: OnnxMouthAnalyzerOptions = {}) {
    if (options.binaries) this.binaries = Promise.resolve(options.binaries);
  }

  async analyze(audioPath: string, fps: number, signal?: AbortSignal, durationSec?: number): Promise<MouthShape[]> {
    return (await this.analyzeDetailed(audioPath, fps, signal, durationSec)).shapes;
  }

  /**
   * {@link analyze}, with the posteriors and durations behind the shapes. A positive `durationSec`
   * (already probed by the caller) is used in place of this analyzer's own probe, unless
   * {@link OnnxMouthAnalyzerOptions.duration} is `'decoded'`.
   */
  async analyzeDetailed(audioPath: string, fps: number, signal?: AbortSignal, durationSec?: number): Promise<MouthAnalysis> {
    if (!(fps > 0)) throw new RangeError(`fps must be positive, got ${fps}`);
    const modelLoad = VisemeModel.load(this.options.modelPath);
    this.binaries ??= resolveMediaBinaries();
    const binaries = await this.binaries;
    const known = durationSec !== undefined && Number.isFinite(durationSec) && durationSec > 0;
    const probed =
      this.options.duration === 'decoded'
        ? Promise.resolve(0)
        : known
          ? Promise.resolve(durationSec)
          : probeMedia(audioPath, binaries, { signal }).then((p) => p.durationSec, () => 0);
    const pcm = decodeAudio(audioPath, { sampleRate: SAMPLE_RATE, channels: 1, signal }, binaries);
    const extractor = await extractFeatures(pcm, signal);
    const features = extractor.features();
    const frames = features.length / N_MELS;
    const decodedSec = extractor.samplesSeen / SAMPLE_RATE;
    const probedSec = await probed;
    const usedSec = probedSec > 0 ? probedSec : decodedSec;
    const model = await modelLoad;
    const posteriors = await model.posteriors(features, frames, this.options.chunks, signal);
    const shapes = mouthTrack(posteriors, frames, fps, videoFrameCount(usedSec, fps), this.options.mouth);
    return { shapes, posteriors, frames, durationSec: usedSec, decodedSec };
  }
}

/** Streams f32le PCM into a {@link LogMelExtractor}, handling chunks that split a sample. */
export async function extractFeatures(pcm: Readable, signal?: AbortSignal): Promise<LogMelExtractor> {
  const extractor = new LogMelExtractor();
  let carry = Buffer.alloc(0);
  try {
    for await (const chunk of pcm as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
      const whole = data.length - (data.length % 4);
      const samples = new Float32Array(whole / 4);
      for (let i = 0; i < samples.length; i++) samples[i] = data.readFloatLE(i * 4);
      carry = Buffer.from(data.subarray(whole));
      extractor.push(samples);
    }
  } finally {
    pcm.destroy();
  }
  signal?.throwIfAborted();
  extractor.finish();
  return extractor;
}
