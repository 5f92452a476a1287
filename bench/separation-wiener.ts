/**
 * Classical DSP baseline for the separation bench: a Wiener filter with a minimum-statistics noise estimate.
 *
 * 16 kHz, the engine's STFT (512-point, hop 256, sqrt-Hann). Noise PSD per bin: the minimum over a sliding
 * window of ~1.5 s of the recursively smoothed power (α = 0.8), times a bias of 1.5; a-priori SNR by the
 * decision-directed rule (β = 0.98); gain ξ/(1+ξ) with a floor of −20 dB. Speech = gain·X, ambience = mix − speech.
 */
import { BINS, FrameTransform, HOP, NFFT, frameCount } from '../src/inference/separation/stft.js';

export function wienerSpeech(mix: Float32Array): Float32Array {
  const n = mix.length;
  const frames = frameCount(n);
  const padded = new Float32Array(n + 2 * NFFT);
  padded.set(mix, HOP);
  const ft = new FrameTransform();
  const specs: Float32Array[] = [];
  const power: Float32Array[] = [];
  for (let t = 0; t < frames; t++) {
    const s = new Float32Array(2 * BINS);
    ft.analyze(padded, t * HOP, 1, 0, s);
    specs.push(s);
    const p = new Float32Array(BINS);
    for (let k = 0; k < BINS; k++) p[k] = s[2 * k] ** 2 + s[2 * k + 1] ** 2;
    power.push(p);
  }
  // Smoothed power, then a sliding minimum over `win` frames centred on each frame (offline, both sides).
  const smooth = power.map((p) => p.slice());
  for (let t = 1; t < frames; t++) for (let k = 0; k < BINS; k++) smooth[t][k] = 0.8 * smooth[t - 1][k] + 0.2 * power[t][k];
  const win = 94; // ≈ 1.5 s at 62.5 frames/s
  const out = new Float32Array(n + 2 * NFFT);
  const frameOut = new Float32Array(NFFT);
  const y = new Float32Array(2 * BINS);
  const prevClean = new Float32Array(BINS);
  for (let t = 0; t < frames; t++) {
    const lo = Math.max(0, t - win / 2);
    const hi = Math.min(frames, t + win / 2);
    for (let k = 0; k < BINS; k++) {
      let noise = Infinity;
      for (let u = lo; u < hi; u++) noise = Math.min(noise, smooth[u][k]);
      noise = Math.max(noise * 1.5, 1e-12);
      const post = power[t][k] / noise;
      const prio = 0.98 * (prevClean[k] / noise) + 0.02 * Math.max(post - 1, 0);
      const gain = Math.max(prio / (1 + prio), 0.1);
      prevClean[k] = gain * gain * power[t][k];
      y[2 * k] = specs[t][2 * k] * gain;
      y[2 * k + 1] = specs[t][2 * k + 1] * gain;
    }
    ft.synthesize(y, frameOut);
    for (let i = 0; i < NFFT; i++) out[t * HOP + i] += frameOut[i];
  }
  return out.slice(HOP, HOP + n);
}
