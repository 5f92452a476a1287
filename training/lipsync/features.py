"""Log-mel features, exactly as specified in FEATURES.md (numpy reference implementation).

The TypeScript twin is src/inference/lipsync/features.ts; keep both in step.
"""
import numpy as np

SAMPLE_RATE = 16000
HOP = 160            # 10 ms -> 100 frames/s
WIN = 400            # 25 ms
LEFT = 120           # frame t starts at sample t*HOP - LEFT (centre at t*HOP + 80)
NFFT = 512
N_MELS = 40
F_MIN = 20.0
F_MAX = 7600.0
LOG_FLOOR = 1e-6


def hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + np.asarray(f, dtype=np.float64) / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (np.asarray(m, dtype=np.float64) / 2595.0) - 1.0)


def mel_filterbank():
    """[N_MELS, NFFT//2+1] HTK-style triangles, peak 1, no area normalisation."""
    edges = mel_to_hz(np.linspace(hz_to_mel(F_MIN), hz_to_mel(F_MAX), N_MELS + 2))
    freqs = np.arange(NFFT // 2 + 1, dtype=np.float64) * SAMPLE_RATE / NFFT
    fb = np.zeros((N_MELS, NFFT // 2 + 1), dtype=np.float64)
    for m in range(N_MELS):
        lo, c, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (freqs - lo) / (c - lo)
        down = (hi - freqs) / (hi - c)
        fb[m] = np.maximum(0.0, np.minimum(up, down))
    return fb


def hann():
    n = np.arange(WIN, dtype=np.float64)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * n / WIN)  # periodic Hann


_FB = mel_filterbank()
_WINDOW = hann()


def num_frames(n_samples):
    return (n_samples + HOP - 1) // HOP


def logmel(x):
    """x: float mono samples at 16 kHz in [-1, 1]. Returns float32 [T, 40], T = ceil(N/160)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    t = num_frames(n)
    if t == 0:
        return np.zeros((0, N_MELS), np.float32)
    padded = np.zeros(LEFT + t * HOP + WIN, dtype=np.float64)
    padded[LEFT:LEFT + n] = x
    idx = np.arange(t)[:, None] * HOP + np.arange(WIN)[None, :]
    frames = padded[idx] * _WINDOW[None, :]
    spec = np.fft.rfft(frames, n=NFFT, axis=1)
    power = spec.real ** 2 + spec.imag ** 2
    mel = power @ _FB.T
    return np.log(mel + LOG_FLOOR).astype(np.float32)


def frame_rms(x):
    """Per-frame RMS over the same 25 ms frames (rectangular window); used by the loudness baseline."""
    x = np.asarray(x, dtype=np.float64)
    t = num_frames(len(x))
    padded = np.zeros(LEFT + t * HOP + WIN, dtype=np.float64)
    padded[LEFT:LEFT + len(x)] = x
    idx = np.arange(t)[:, None] * HOP + np.arange(WIN)[None, :]
    return np.sqrt(np.mean(padded[idx] ** 2, axis=1))
