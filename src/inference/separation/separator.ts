/**
 * Streaming speech estimation at 16 kHz (the model's own rate): push interleaved samples in pieces of any size, get
 * the speech estimate back (same layout) as soon as it is final. The mask comes from the downmix (mean of the
 * channels) and is applied to every channel's STFT, so a voice panned to one side stays there. The model runs on
 * chunks of `chunkFrames` frames plus {@link MODEL_CONTEXT} frames of context each side, so the result equals a
 * whole-file run while memory holds only one chunk whatever the input length. It is {@link FullBandSeparator} with
 * both of its inputs the same 16 kHz samples.
 */
import { FullBandSeparator } from './fullband.js';
import type { MaskStreamOptions } from './mask-stream.js';
import type { MaskModel } from './model.js';
import { MODEL_RATE } from './stft.js';

export { concatSamples } from './stft.js';

export type StreamingSeparatorOptions = MaskStreamOptions;

export class StreamingSeparator {
  private readonly inner: FullBandSeparator;
  private finished = false;

  constructor(model: MaskModel, channels: number, options: StreamingSeparatorOptions = {}) {
    this.inner = new FullBandSeparator(model, channels, MODEL_RATE, options);
  }

  /** Feeds interleaved samples; returns the speech samples that became final (possibly none). */
  async push(samples: Float32Array): Promise<Float32Array> {
    if (this.finished) throw new Error('push() after finish()');
    await this.inner.pushLow(samples);
    this.inner.pushNative(samples);
    return this.inner.take().speech;
  }

  /** Ends the input; returns the rest of the speech estimate (total length = samples pushed). */
  async finish(): Promise<Float32Array> {
    if (this.finished) throw new Error('finish() called twice');
    this.finished = true;
    await this.inner.finishLow();
    this.inner.finishNative();
    return this.inner.take().speech;
  }
}
