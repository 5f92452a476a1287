"""On-the-fly mixtures from the pools of prep.py: speech (optionally reverberant) + ambience at −5…+10 dB SNR,
random overall gain. The speech target is the speech as it sounds in the mixture (with its reverb)."""
import os

import numpy as np
from scipy.signal import fftconvolve, lfilter

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SR = 16000


class Pool:
    def __init__(self, npz, name):
        self.audio = npz[name]
        self.offsets = npz[name + "_offsets"]
        self.cat = npz[name + "_cat"]
        self.catnames = list(npz[name + "_catnames"])
        self.n = len(self.offsets) - 1

    def clip(self, i):
        return self.audio[self.offsets[i]:self.offsets[i + 1]].astype(np.float32) / 32768.0

    def indices(self, *catnames):
        """Clips of the given categories (those the pool has)."""
        codes = [self.catnames.index(c) for c in catnames if c in self.catnames]
        return np.nonzero(np.isin(self.cat, codes))[0]


def load_pools(split):
    npz = np.load(os.path.join(DATA, "pools.npz"))
    return Pool(npz, f"speech_{split}"), Pool(npz, f"amb_{split}")


def speech_segment(rng, pool, length, idx=None):
    """Utterances back to back with short pauses; never silent."""
    out = np.zeros(length, np.float32)
    pos = int(rng.integers(0, SR // 3))
    while pos < length - SR // 4:
        i = int(rng.choice(idx)) if idx is not None else int(rng.integers(pool.n))
        x = pool.clip(i)
        x = x / (np.sqrt(np.mean(x ** 2)) + 1e-6) * 10 ** (rng.uniform(-6, 6) / 20)  # level varies per utterance
        if len(x) > length - pos and pos == 0:
            s = int(rng.integers(0, len(x) - length + 1))
            x = x[s:s + length]
        n = min(len(x), length - pos)
        out[pos:pos + n] = x[:n]
        pos += n + int(rng.uniform(0.05, 0.7) * SR)
    return out


def rir(rng):
    rt60 = rng.uniform(0.15, 0.8)
    n = int(rt60 * SR)
    t = np.arange(n) / SR
    h = rng.standard_normal(n).astype(np.float32) * np.exp(-6.9 * t / rt60).astype(np.float32)
    h = lfilter([1.0], [1.0, -rng.uniform(0.0, 0.7)], h).astype(np.float32)  # darker tails
    h[: int(0.002 * SR)] = 0
    h *= 10 ** (rng.uniform(-12, -3) / 20) / (np.sqrt(np.sum(h ** 2)) + 1e-9)
    h[0] = 1.0
    return h


def synth_noise(rng, length):
    kind = rng.integers(6)
    w = rng.standard_normal(length + 1024).astype(np.float32)
    if kind == 0:  # white-ish with a random tilt
        x = lfilter([1.0], [1.0, -rng.uniform(-0.5, 0.95)], w)
    elif kind == 1:  # pink (Voss-McCartney-like filter)
        b = [0.049922035, -0.095993537, 0.050612699, -0.004408786]
        a = [1, -2.494956002, 2.017265875, -0.522189400]
        x = lfilter(b, a, w)
    elif kind == 2:  # brown / rumble
        x = lfilter([1.0], [1.0, -0.995], w)
    elif kind >= 4:  # steady or beeping tones (whistles, alarms, test tones, drones), possibly gliding
        t = np.arange(length + 1024) / SR
        x = np.zeros_like(t)
        for _ in range(rng.integers(1, 5)):
            f = np.exp(rng.uniform(np.log(80), np.log(7000)))
            glide = 1 + (rng.uniform(-0.3, 0.3) * t / t[-1] if rng.random() < 0.3 else 0)
            x = x + rng.uniform(0.2, 1) * np.sin(2 * np.pi * f * glide * t + rng.uniform(0, 6.3))
        if kind == 5:  # on/off gating
            period = rng.uniform(0.2, 2.0)
            x = x * ((t % period) < period * rng.uniform(0.3, 0.8))
        x = x + 0.01 * w
    else:  # mains hum + harmonics over a noise floor
        t = np.arange(length + 1024) / SR
        f0 = rng.choice([50.0, 60.0])
        x = sum(rng.uniform(0.1, 1) * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6.3)) for k in range(1, 8))
        x = x + 0.05 * w
    x = np.asarray(x[1024:], np.float32)
    if rng.random() < 0.4:  # slow amplitude modulation (wind, traffic)
        t = np.arange(length) / SR
        x *= (1 + rng.uniform(0.2, 0.9) * np.sin(2 * np.pi * rng.uniform(0.1, 2) * t)).astype(np.float32)
    return x


def amb_segment(rng, pool, length, idx=None):
    i = int(rng.choice(idx)) if idx is not None else int(rng.integers(pool.n))
    x = pool.clip(i)
    if len(x) >= length:
        s = int(rng.integers(0, len(x) - length + 1))
        return x[s:s + length].copy()
    out = np.zeros(length, np.float32)  # short clips (samples, effects): repeat with random gaps
    pos = int(rng.integers(0, SR))
    while pos < length:
        n = min(len(x), length - pos)
        out[pos:pos + n] += x[:n] * 10 ** (rng.uniform(-6, 0) / 20)
        pos += n + int(rng.uniform(0.0, 1.0) * SR)
    return out


def sung(rng, pool, length, p_bed=0.7):
    """A sung line (synthetic singing, sing.py) a cappella or as the lead vocal over music (−6…+9 dB over it)."""
    v = amb_segment(rng, pool, length, pool.indices("singing"))
    if rng.random() >= p_bed:
        return v
    bed = amb_segment(rng, pool, length, pool.indices("music", "song"))
    return v / (rms(v) + 1e-6) * 10 ** (rng.uniform(-6, 9) / 20) + bed / (rms(bed) + 1e-6)


def ambience(rng, pool, length, p_noise=0.25, p_sung=0.2):
    r = rng.random()
    if r < p_noise:
        a = synth_noise(rng, length)
    elif r < p_noise + p_sung and len(pool.indices("singing")) > 0:
        a = sung(rng, pool, length)
    else:
        a = amb_segment(rng, pool, length)
        if rng.random() < 0.3:
            b = amb_segment(rng, pool, length) if rng.random() < 0.7 else synth_noise(rng, length)
            a = a / (rms(a) + 1e-6) + b / (rms(b) + 1e-6) * 10 ** (rng.uniform(-15, 0) / 20)
    return a


def rms(x):
    return float(np.sqrt(np.mean(x ** 2)))


def mix(rng, speech, amb, snr_db, gain=True):
    """Returns (mixture, speech) with the ambience scaled to `snr_db` and a random overall level."""
    amb = amb * (rms(speech) / (rms(amb) + 1e-8)) * 10 ** (-snr_db / 20)
    m = speech + amb
    g = 10 ** (rng.uniform(-30, -1) / 20) / (np.max(np.abs(m)) + 1e-8) if gain else 1.0 / (np.max(np.abs(m)) * 1.05 + 1e-8)
    return (m * g).astype(np.float32), (speech * g).astype(np.float32)


def example_without_speech(rng, amb_pool, length):
    """Ambience alone (half of the time sung): the speech target is silence."""
    a = sung(rng, amb_pool, length) if rng.random() < 0.5 else ambience(rng, amb_pool, length)
    g = 10 ** (rng.uniform(-30, -1) / 20) / (np.max(np.abs(a)) + 1e-8)
    return (a * g).astype(np.float32), np.zeros(length, np.float32)


def example(rng, sp_pool, amb_pool, length, p_reverb=0.35):
    s = speech_segment(rng, sp_pool, length)
    if rng.random() < p_reverb:
        s = fftconvolve(s, rir(rng))[:length].astype(np.float32)
    a = ambience(rng, amb_pool, length)
    return mix(rng, s, a, rng.uniform(-5, 10))
