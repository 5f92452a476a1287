/**
 * The compute of the built-in {@link OnnxMouthAnalyzer}, on the thread that calls it (a child process by default):
 * the input becomes 16 kHz mono float PCM (streamed: a plain PCM WAV read and resampled here, see wav-pcm.ts, any
 * other file decoded by ffmpeg), log-mel features are computed on the fly, the ONNX viseme model runs in 10 s chunks,
 * the features also tell speech from pauses (voice-activity.ts), and the posteriors become one mouth shape per video
 * frame (see mouth-track.ts).
 * Memory: the features (16 KB per second) and posteriors (3.6 KB per second), never the audio.
 */
import type { Readable } from 'node:stream';
import { decodeAudio, probeMedia, type MediaBinaries } from '../media/index.js';
import { PcmFrameReader } from '../media/pcm-frames.js';
import { openWavPcm } from '../media/wav-pcm.js';
import { LogMelExtractor, N_MELS, SAMPLE_RATE } from './features.js';
import type { MouthShape } from './mouth.js';
import { mouthTrack, videoFrameCount, type MouthTrackOptions } from './mouth-track.js';
import { VisemeModel, type ChunkOptions } from './viseme-model.js';
import { voiceActivity } from './voice-activity.js';

/** What the analysis needs besides the recording: the settings of {@link OnnxMouthAnalyzer}, resolved. */
export interface MouthAnalysisSettings {
  /** Path of the ONNX model; the shipped one when absent. */
  modelPath?: string;
  binaries: MediaBinaries;
  mouth?: MouthTrackOptions;
  chunks?: ChunkOptions;
  duration?: 'probe' | 'decoded';
  /** Read plain PCM WAV files here instead of through ffmpeg (default true; see wav-pcm.ts). */
  readWav?: boolean;
}

/** What the analysis produced, for callers that want more than the shapes (bench, debugging). */
export interface MouthAnalysis {
  shapes: MouthShape[];
  /** `[frames * 9]` viseme posteriors at 100 frames/s. */
  posteriors: Float32Array;
  frames: number;
  /** Duration used for the frame count (see `OnnxMouthAnalyzerOptions.duration`). */
  durationSec: number;
  /** Decoded audio length in seconds. */
  decodedSec: number;
}

/**
 * Analyses one recording on this thread. A positive `durationSec` (already probed by the caller) is used in place
 * of a probe, unless `settings.duration` is `'decoded'`.
 */
export async function analyzeMouth(
  settings: MouthAnalysisSettings,
  audioPath: string,
  fps: number,
  signal?: AbortSignal,
  durationSec?: number,
): Promise<MouthAnalysis> {
  if (!(fps > 0)) throw new RangeError(`fps must be positive, got ${fps}`);
  signal?.throwIfAborted();
  const modelLoad = VisemeModel.load(settings.modelPath);
  // Reported below, after the features: a failed load must not count as unhandled meanwhile.
  modelLoad.catch(() => undefined);
  const { binaries } = settings;
  const known = durationSec !== undefined && Number.isFinite(durationSec) && durationSec > 0;
  const probed =
    settings.duration === 'decoded'
      ? Promise.resolve(0)
      : known
        ? Promise.resolve(durationSec)
        : probeMedia(audioPath, binaries, { signal }).then((p) => p.durationSec, () => 0);
  const maxDurationSec = known ? durationSec : undefined;
  // A file that cannot be opened here goes to ffmpeg too, which reports it as for any input.
  const wav = settings.readWav === false ? undefined : await openWavPcm(audioPath, { sampleRate: SAMPLE_RATE, maxDurationSec, signal }).catch(() => undefined);
  const extractor = wav
    ? await extractFeaturesOf(wav, signal)
    : await extractFeatures(decodeAudio(audioPath, { sampleRate: SAMPLE_RATE, channels: 1, signal, maxDurationSec }, binaries), signal);
  const features = extractor.features();
  const frames = features.length / N_MELS;
  const decodedSec = extractor.samplesSeen / SAMPLE_RATE;
  const probedSec = await probed;
  const usedSec = probedSec > 0 ? probedSec : decodedSec;
  const model = await modelLoad;
  const posteriors = await model.posteriors(features, frames, settings.chunks, signal);
  const voice = settings.mouth?.voice;
  const activity = voice === false ? undefined : voiceActivity(features, frames, voice);
  const shapes = mouthTrack(posteriors, frames, fps, videoFrameCount(usedSec, fps), settings.mouth, activity);
  return { shapes, posteriors, frames, durationSec: usedSec, decodedSec };
}

/** Streams f32le PCM into a {@link LogMelExtractor}, handling chunks that split a sample. */
export async function extractFeatures(pcm: Readable, signal?: AbortSignal): Promise<LogMelExtractor> {
  try {
    return await extractFeaturesOf(floatSamples(pcm as AsyncIterable<Buffer>), signal);
  } finally {
    pcm.destroy();
  }
}

/** 16 kHz samples, in pieces of any size, into a {@link LogMelExtractor}. */
async function extractFeaturesOf(samples: AsyncIterable<Float32Array>, signal?: AbortSignal): Promise<LogMelExtractor> {
  const extractor = new LogMelExtractor();
  for await (const piece of samples) {
    signal?.throwIfAborted();
    extractor.push(piece);
  }
  signal?.throwIfAborted();
  extractor.finish();
  return extractor;
}

/** Mono f32le bytes, in chunks that may split a sample, as floats (the extractor copies what it keeps). */
async function* floatSamples(chunks: AsyncIterable<Buffer>): AsyncGenerator<Float32Array> {
  const reader = new PcmFrameReader(1);
  for await (const chunk of chunks) yield reader.read(chunk);
}
