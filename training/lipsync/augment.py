"""Audio augmentation so the recogniser copes with real recordings: noise/music/babble at several
SNRs, reverb, EQ/band limiting, gain, and mp3 round trips through ffmpeg."""
import os
import subprocess
import tempfile

import numpy as np
from scipy import signal

SR = 16000


def _pink(n, rng, exponent=1.0):
    spec = rng.standard_normal(n // 2 + 1) + 1j * rng.standard_normal(n // 2 + 1)
    f = np.arange(n // 2 + 1, dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / f ** (exponent / 2.0), n)
    return x / (np.std(x) + 1e-12)


def _music(n, rng):
    """Cheap synthetic music: notes with harmonics and decays, plus a drum pattern."""
    out = np.zeros(n)
    bpm = rng.uniform(70, 160)
    beat = int(SR * 60 / bpm)
    base = rng.uniform(110, 330)
    scale = [0, 2, 4, 5, 7, 9, 11, 12]
    t = np.arange(int(beat * 2)) / SR
    pos = 0
    while pos < n:
        for _ in range(rng.integers(1, 4)):
            f0 = base * 2 ** (rng.choice(scale) / 12.0) * rng.choice([0.5, 1, 2])
            dur = len(t)
            env = np.exp(-t * rng.uniform(1, 6))
            note = sum((0.6 ** h) * np.sin(2 * np.pi * f0 * (h + 1) * t + rng.uniform(0, 6.28)) for h in range(5))
            seg = min(dur, n - pos)
            out[pos:pos + seg] += (note * env)[:seg]
        if rng.random() < 0.7:  # kick + hat
            kt = np.arange(int(0.15 * SR)) / SR
            kick = np.sin(2 * np.pi * 55 * kt * (1 + 2 * np.exp(-kt * 30))) * np.exp(-kt * 25)
            seg = min(len(kick), n - pos)
            out[pos:pos + seg] += 2 * kick[:seg]
            hp = pos + beat // 2
            if hp < n:
                hat = rng.standard_normal(int(0.05 * SR)) * np.exp(-np.arange(int(0.05 * SR)) / SR * 80)
                hat = signal.lfilter([1, -1], [1], hat)
                seg = min(len(hat), n - hp)
                out[hp:hp + seg] += 0.5 * hat[:seg]
        pos += beat
    return out / (np.std(out) + 1e-12)


def make_noise(kind, n, rng, babble_source=None):
    if kind == "white":
        x = rng.standard_normal(n)
    elif kind == "pink":
        x = _pink(n, rng, 1.0)
    elif kind == "brown":
        x = _pink(n, rng, 2.0)
    elif kind == "hum":
        t = np.arange(n) / SR
        f = rng.choice([50.0, 60.0])
        x = sum(np.sin(2 * np.pi * f * k * t + rng.uniform(0, 6)) / k for k in range(1, 8)) + 0.1 * rng.standard_normal(n)
    elif kind == "music":
        x = _music(n, rng)
    elif kind == "babble":
        x = babble_source(n)
    else:
        raise ValueError(kind)
    return x / (np.std(x) + 1e-12)


def reverb(x, rng):
    rt60 = rng.uniform(0.15, 0.9)
    length = int(SR * min(rt60 * 1.2, 1.0))
    t = np.arange(length) / SR
    rir = rng.standard_normal(length) * np.exp(-6.9 * t / rt60)
    rir = signal.lfilter([1.0], [1.0, -rng.uniform(0.0, 0.8)], rir)  # darker tails
    pre = int(rng.uniform(0.002, 0.02) * SR)
    rir[:pre] = 0
    rir[0] = rng.uniform(1.0, 4.0) * np.max(np.abs(rir))  # direct path
    y = signal.fftconvolve(x, rir)[: len(x)]
    return y * (np.std(x) / (np.std(y) + 1e-12))


def eq(x, rng):
    if rng.random() < 0.5:
        b, a = signal.butter(2, rng.uniform(60, 400) / (SR / 2), "high")
        x = signal.lfilter(b, a, x)
    if rng.random() < 0.6:
        b, a = signal.butter(rng.choice([2, 4]), rng.uniform(2800, 7500) / (SR / 2), "low")
        x = signal.lfilter(b, a, x)
    return x


def band_limit(x, rng):
    """Simulate a lower original sample rate (8 / 11.025 / 12 kHz) resampled back up to 16 kHz."""
    up, down = [(1, 2), (441, 640), (3, 4)][rng.integers(0, 3)]
    y = signal.resample_poly(signal.resample_poly(x, up, down), down, up)
    return y[: len(x)] if len(y) >= len(x) else np.pad(y, (0, len(x) - len(y)))


def mp3_roundtrip(x, rng):
    bitrate = rng.choice(["24k", "32k", "48k", "64k", "96k", "128k"])
    with tempfile.TemporaryDirectory() as d:
        src, mp3 = os.path.join(d, "a.f32"), os.path.join(d, "a.mp3")
        x.astype("<f4").tofile(src)
        subprocess.run(["ffmpeg", "-v", "error", "-threads", "1", "-f", "f32le", "-ar", str(SR), "-ac", "1", "-i", src,
                        "-c:a", "libmp3lame", "-b:a", bitrate, "-y", mp3], check=True)
        out = subprocess.run(["ffmpeg", "-v", "error", "-threads", "1", "-i", mp3, "-f", "f32le", "-ar", str(SR),
                              "-ac", "1", "-"], check=True, capture_output=True).stdout
    y = np.frombuffer(out, "<f4").astype(np.float64)
    return y[: len(x)] if len(y) >= len(x) else np.pad(y, (0, len(x) - len(y)))


def augment(speech, rng, babble_source):
    """speech: float64 at 16 kHz with silence padding. Returns (audio, description)."""
    desc = []
    x = speech
    if rng.random() < 0.4:
        x = reverb(x, rng)
        desc.append("reverb")
    if rng.random() < 0.4:
        x = eq(x, rng)
        desc.append("eq")
    if rng.random() < 0.15:
        x = band_limit(x, rng)
        desc.append("bandlimit")
    level_db = rng.uniform(-38, -12)
    x = x / (np.sqrt(np.mean(x[np.abs(x) > 1e-4] ** 2)) + 1e-12) * 10 ** (level_db / 20)
    if rng.random() < 0.75:
        kind = rng.choice(["white", "pink", "brown", "hum", "music", "music", "babble"])
        snr = rng.choice([0, 5, 10, 15, 20, 30]) if kind != "babble" else rng.choice([10, 15, 20, 30])
        if kind == "music" and snr == 0:
            snr = 5
        speech_rms = 10 ** (level_db / 20)
        x = x + make_noise(kind, len(x), rng, babble_source) * speech_rms * 10 ** (-snr / 20)
        desc.append(f"{kind}@{snr}dB")
    else:
        x = x + rng.standard_normal(len(x)) * 10 ** (rng.uniform(-90, -60) / 20)  # mic self-noise
    if rng.random() < 0.25:
        x = mp3_roundtrip(x, rng)
        desc.append("mp3")
    x = np.clip(x, -1.0, 1.0)
    return x, "+".join(desc) or "clean"
