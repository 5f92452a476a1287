"""Synthetic singing (16 kHz): sung vowels belong in the ambience, so the model must learn to tell them from speech.

A source-filter voice: harmonics of a melodic f0 contour (notes of a random scale held 0.2–1.6 s, portamento between
notes, vibrato 4.5–6.5 Hz of ±0.15–0.8 semitone fading in after each onset, slow drift and jitter), a spectral tilt,
and a vowel's formant envelope (F1–F4 of /a e i o u ɛ ɔ ə/, gliding between notes), an attack/release per note,
breath noise shaped by the same formants, and consonants at some onsets (fricative noise bursts, plosive gaps).
Voices: male or female range; a choir of 2–6 voices (detuned, own vibrato, unison or in thirds/fifths); a lead voice
sometimes doubled. Everything comes from the numpy generator given, so a seed gives the same singing.
"""
import numpy as np
from scipy.signal import lfilter

SR = 16000
VOWELS = {  # F1..F4 (Hz), roughly a singer's
    "a": (800, 1150, 2800, 3500), "e": (450, 1900, 2600, 3400), "i": (300, 2200, 3000, 3600),
    "o": (450, 800, 2830, 3400), "u": (325, 700, 2530, 3300), "E": (600, 1700, 2600, 3400),
    "O": (570, 850, 2500, 3300), "@": (500, 1400, 2500, 3400),
}
SCALES = [(0, 2, 4, 5, 7, 9, 11), (0, 2, 3, 5, 7, 8, 10), (0, 2, 4, 7, 9), (0, 3, 5, 7, 10), (0, 2, 3, 5, 7, 9, 10)]


def melody(rng, length, lo_midi, hi_midi):
    """Per-sample midi pitch of a melody of held notes, and the note onsets (sample indices)."""
    scale = SCALES[rng.integers(len(SCALES))]
    root = rng.integers(lo_midi, lo_midi + 12)
    notes = [root + 12 * o + s for o in range(-1, 3) for s in scale if lo_midi <= root + 12 * o + s <= hi_midi]
    beat = rng.uniform(0.22, 0.6)
    pitch = np.zeros(length, np.float64)
    onsets, rests = [], []
    pos, cur = 0, int(rng.integers(len(notes)))
    while pos < length:
        dur = int(beat * rng.choice([1, 1, 2, 2, 3, 4]) * SR)
        cur = int(np.clip(cur + rng.choice([-2, -1, -1, 0, 1, 1, 2, 3, -3]), 0, len(notes) - 1))
        pitch[pos:pos + dur] = notes[cur]
        onsets.append(pos)
        if rng.random() < 0.12:  # a breath between phrases
            rests.append((pos + int(dur * 0.75), pos + dur))
        pos += dur
    # portamento: smooth the steps over 20–90 ms
    k = int(rng.uniform(0.02, 0.09) * SR)
    pitch = np.convolve(np.pad(pitch, (k, k), mode="edge"), np.ones(k) / k, mode="same")[k:k + length]
    return pitch, onsets, rests


def voice(rng, length, female, pitch=None, onsets=None, rests=None, transpose=0.0):
    lo, hi = (55, 79) if female else (43, 67)  # G3–G5 / G2–G4
    if pitch is None:
        pitch, onsets, rests = melody(rng, length, lo, hi)
    t = np.arange(length) / SR
    # vibrato fading in after each onset
    since = np.zeros(length)
    for o in onsets:
        since[o:] = np.arange(length - o) / SR
    depth = rng.uniform(0.15, 0.8) * np.clip((since - rng.uniform(0.08, 0.3)) / 0.25, 0, 1)
    vib = depth * np.sin(2 * np.pi * rng.uniform(4.5, 6.5) * t + rng.uniform(0, 6.3))
    drift = 0.1 * np.cumsum(rng.standard_normal(length)) / np.sqrt(SR)
    jitter = lfilter([0.02], [1, -0.98], rng.standard_normal(length)) * 0.3
    f0 = 440.0 * 2 ** ((pitch + transpose + vib + drift + jitter - 69) / 12)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    # vowels: one per note, formants gliding between them
    names = list(VOWELS)
    fmt = np.zeros((length, 4))
    bounds = list(onsets) + [length]
    for a, b in zip(bounds[:-1], bounds[1:]):
        fmt[a:b] = np.array(VOWELS[names[rng.integers(len(names))]]) * rng.uniform(0.92, 1.1 if female else 1.0)
    k = int(0.06 * SR)
    for j in range(4):
        fmt[:, j] = np.convolve(np.pad(fmt[:, j], (k, k), mode="edge"), np.ones(k) / k, mode="same")[k:k + length]
    bw = np.array([80, 100, 140, 200]) * rng.uniform(0.8, 1.4)
    gains = np.array([1.0, 0.7, 0.35, 0.2]) * rng.uniform(0.7, 1.2, 4)
    singer_formant = rng.uniform(0, 1.2) if not female else rng.uniform(0, 0.5)

    def envelope(freq):
        e = np.zeros_like(freq)
        for j in range(4):
            e += gains[j] / (1 + ((freq - fmt[:, j]) / bw[j]) ** 2)
        e += singer_formant * 0.3 / (1 + ((freq - 2900) / 300) ** 2)
        return e + 0.01

    tilt = rng.uniform(0.9, 1.6)
    out = np.zeros(length)
    kmax = int(7600 / max(60.0, f0.min()))
    # harmonic amplitudes on a coarse time grid (every 4 ms), interpolated per sample
    grid = np.arange(0, length, 64)
    fmt_full = fmt
    fmt = fmt_full[grid]  # envelope() reads fmt
    for h in range(1, kmax + 1):
        fh = h * f0[grid]
        amp = envelope(fh) / h ** tilt
        amp[fh > 7600] = 0
        out += np.interp(np.arange(length), grid, amp) * np.sin(h * phase)
    fmt = fmt_full
    # breath noise through the formants (a crude filter bank: noise × envelope at a few bands)
    noise = rng.standard_normal(length) * rng.uniform(0.0, 0.08)
    out += lfilter([1, -0.9], [1], noise) * envelope(np.full(length, 1500.0))
    # note envelopes: attack, release, rests, consonants at some onsets
    env = np.ones(length)
    for a, b in zip(bounds[:-1], bounds[1:]):
        att = int(rng.uniform(0.02, 0.1) * SR)
        env[a:a + att] *= np.linspace(0.1, 1, len(env[a:a + att]))
        rel = int(rng.uniform(0.03, 0.12) * SR)
        env[max(a, b - rel):b] *= np.linspace(1, 0.3, len(env[max(a, b - rel):b]))
        if rng.random() < 0.45:  # consonant: a fricative hiss or a plosive gap before the vowel
            n = int(rng.uniform(0.03, 0.09) * SR)
            if rng.random() < 0.6:
                hiss = lfilter([1, -0.95], [1], rng.standard_normal(n)) * rng.uniform(0.05, 0.3)
                out[a:a + n] = out[a:a + n] * 0.2 + hiss[:len(out[a:a + n])]
            else:
                env[a:a + n] *= 0.05
    for a, b in rests or []:
        env[a:b] *= 0.02
    x = out * env
    return (x / (np.sqrt(np.mean(x ** 2)) + 1e-9)).astype(np.float32), (pitch, onsets, rests)


def singing(rng, length):
    """A sung line: solo (sometimes doubled) or a choir."""
    female = rng.random() < 0.5
    kind = rng.random()
    if kind < 0.55:
        x, _ = voice(rng, length, female)
        return x
    if kind < 0.7:  # double-tracked lead
        x, mel = voice(rng, length, female)
        y, _ = voice(rng, length, female, *mel, transpose=rng.uniform(-0.1, 0.1))
        return x + 0.7 * y
    n = int(rng.integers(2, 7))  # choir: unison or thirds/fifths, mixed voices
    x, mel = voice(rng, length, female)
    for _ in range(n - 1):
        tr = float(rng.choice([0, 0, 3, 4, 7, -5, -12, 12])) + rng.uniform(-0.15, 0.15)
        y, _ = voice(rng, length, rng.random() < 0.5, *mel, transpose=tr)
        x = x + rng.uniform(0.5, 1.0) * y
    return x.astype(np.float32)


if __name__ == "__main__":  # writes a few examples to listen to
    import sys
    import wave
    rng = np.random.default_rng(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    for i in range(4):
        x = singing(rng, 6 * SR)
        x = (x / np.max(np.abs(x)) * 0.8 * 32767).astype(np.int16)
        with wave.open(f"/tmp/sing{i}.wav", "wb") as w:
            w.setnchannels(1); w.setsampwidth(2); w.setframerate(SR); w.writeframes(x.tobytes())
