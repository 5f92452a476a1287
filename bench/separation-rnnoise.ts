/**
 * RNNoise baseline for the separation bench (@shiguredo/rnnoise-wasm, RNNoise 0.2, default model).
 *
 * RNNoise runs at 48 kHz on 480-sample frames in int16 scale. The bench is 16 kHz mono, so: upsample ×3 with a
 * zero-phase windowed-sinc FIR (offline, centred: no resampler delay), scale by 32768, denoise frame by frame
 * (the input is padded with zeros so the last frames are flushed), scale back, drop RNNoise's algorithmic delay
 * (measured by cross-correlation, see `measureRnnoiseDelay`), then downsample ÷3 through the same low-pass.
 * Speech = RNNoise output, ambience = mix − speech.
 */
import type { DenoiseState, Rnnoise } from '@shiguredo/rnnoise-wasm';

const FACTOR = 3;
const FRAME = 480;
/**
 * RNNoise's algorithmic delay at 48 kHz, measured with `measureRnnoiseDelay` (cross-correlation peak between the
 * resampled input and the raw denoised output; held-out speech clip, clean and with noise: lag 960, r ≈ 0.97):
 * 960 samples = two frames (20 ms; 320 at 16 kHz). The bench re-measures it on its first mixture and reports it.
 */
export const RNNOISE_DELAY_48K = 960;

/** Low-pass FIR for 48 kHz with cutoff at 16 kHz Nyquist (8 kHz), Blackman-windowed sinc, unity DC gain. */
function lowpass(halfTaps = 48): Float32Array {
  const n = 2 * halfTaps + 1;
  const h = new Float32Array(n);
  const fc = 0.95 / (2 * FACTOR); // cycles/sample at 48 kHz: 7.6 kHz, just below 8 kHz
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const k = i - halfTaps;
    const sinc = k === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * k) / (Math.PI * k);
    const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (n - 1));
    h[i] = sinc * w;
    sum += h[i];
  }
  for (let i = 0; i < n; i++) h[i] /= sum;
  return h;
}

const LP = lowpass();
const HALF = (LP.length - 1) / 2;

/** 16 kHz → 48 kHz: zero-stuffing ×3 then the centred low-pass with gain 3 (polyphase: only non-zero inputs summed). */
export function upsample3(x: Float32Array): Float32Array {
  const n = x.length * FACTOR;
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let acc = 0;
    // y[i] = 3 Σ_k h[k + HALF] · u[i − k], u[j] = x[j/3] when j % 3 == 0.
    const jMin = Math.max(0, Math.ceil((i - HALF) / FACTOR));
    const jMax = Math.min(x.length - 1, Math.floor((i + HALF) / FACTOR));
    for (let j = jMin; j <= jMax; j++) acc += LP[i - FACTOR * j + HALF] * x[j];
    y[i] = FACTOR * acc;
  }
  return y;
}

/** 48 kHz → 16 kHz: centred low-pass evaluated only at every third sample. */
export function downsample3(x: Float32Array): Float32Array {
  const n = Math.floor(x.length / FACTOR);
  const y = new Float32Array(n);
  for (let o = 0; o < n; o++) {
    const c = o * FACTOR;
    let acc = 0;
    const kMin = Math.max(-HALF, c - (x.length - 1));
    const kMax = Math.min(HALF, c);
    for (let k = kMin; k <= kMax; k++) acc += LP[k + HALF] * x[c - k];
    y[o] = acc;
  }
  return y;
}

export async function loadRnnoise(): Promise<Rnnoise> {
  // The Emscripten build only accepts a browser-like environment; in Node it loads once `window` exists.
  const g = globalThis as unknown as { window?: unknown };
  g.window ??= globalThis;
  const { Rnnoise } = await import('@shiguredo/rnnoise-wasm');
  return Rnnoise.load();
}

/** Raw RNNoise over a 48 kHz float signal in [-1, 1]: output has the same length, delayed by the algorithmic delay. */
export function rnnoiseRaw48k(rnnoise: Rnnoise, x48: Float32Array): Float32Array {
  const frames = Math.ceil(x48.length / FRAME);
  const out = new Float32Array(frames * FRAME);
  const st: DenoiseState = rnnoise.createDenoiseState();
  try {
    const frame = new Float32Array(FRAME);
    for (let f = 0; f < frames; f++) {
      frame.fill(0);
      const start = f * FRAME;
      const end = Math.min(x48.length, start + FRAME);
      for (let i = start; i < end; i++) frame[i - start] = x48[i] * 32768;
      st.processFrame(frame);
      for (let i = 0; i < FRAME; i++) out[start + i] = frame[i] / 32768;
    }
  } finally {
    st.destroy();
  }
  return out;
}

/** Lag (48 kHz samples, 0..maxLag) maximising the normalised cross-correlation of RNNoise's output with its input. */
export function measureRnnoiseDelay(rnnoise: Rnnoise, mix16k: Float32Array, maxLag = 2400): { lag: number; corr: number } {
  const x = upsample3(mix16k);
  const y = rnnoiseRaw48k(rnnoise, x);
  let best = { lag: 0, corr: -Infinity };
  for (let lag = 0; lag <= maxLag; lag++) {
    let dot = 0;
    let xx = 0;
    let yy = 0;
    for (let i = 0; i + lag < y.length && i < x.length; i++) {
      dot += x[i] * y[i + lag];
      xx += x[i] * x[i];
      yy += y[i + lag] * y[i + lag];
    }
    const corr = dot / Math.sqrt(xx * yy + 1e-20);
    if (corr > best.corr) best = { lag, corr };
  }
  return best;
}

/** Speech estimate for a 16 kHz mono mixture, time-aligned with it and of the same length. */
export function rnnoiseSpeech(rnnoise: Rnnoise, mix16k: Float32Array, delay48k = RNNOISE_DELAY_48K): Float32Array {
  const x = upsample3(mix16k);
  const padded = new Float32Array(x.length + delay48k);
  padded.set(x);
  const y = rnnoiseRaw48k(rnnoise, padded).subarray(delay48k, delay48k + x.length);
  return downsample3(y).subarray(0, mix16k.length);
}
