"""Codec round trips: mixtures from the training pools, encoded and decoded by ffmpeg (mp3, aac, opus at low and
medium bitrates), realigned by cross-correlation. Output data/codec_train.npz: `mix` (coded) and `speech` (clean
target), int16 [N, L]. Mixed into training batches by train.py."""
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.signal import correlate

import mixing

SETTINGS = [("libmp3lame", "64k", "mp3"), ("libmp3lame", "128k", "mp3"), ("aac", "64k", "m4a"),
            ("libopus", "24k", "ogg"), ("libopus", "48k", "ogg")]


def roundtrip(x, codec, rate, ext, tmp):
    src, enc = os.path.join(tmp, "a.f32"), os.path.join(tmp, "b." + ext)
    x.astype(np.float32).tofile(src)
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "f32le", "-ar", "16000", "-ac", "1", "-i", src,
                    "-c:a", codec, "-b:a", rate, enc], check=True)
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", enc, "-ac", "1", "-ar", "16000", "-f", "f32le", "-"],
                         check=True, capture_output=True).stdout
    y = np.frombuffer(out, np.float32)
    probe = x[: 16000 * 20]
    c = correlate(y[: len(probe) + 4096], probe, mode="valid", method="fft")
    lag = int(np.argmax(c))
    y = y[lag:lag + len(x)]
    return np.pad(y, (0, len(x) - len(y)))


def main(n_per_setting=120, length=64000):
    rng = np.random.default_rng(7)
    sp, amb = mixing.load_pools("train")
    mixes, speeches = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for codec, rate, ext in SETTINGS:
            ex = [mixing.example(rng, sp, amb, length) for _ in range(n_per_setting)]
            m = np.concatenate([e[0] for e in ex])
            y = roundtrip(m, codec, rate, ext, tmp).reshape(n_per_setting, length)
            mixes.append(y)
            speeches.append(np.stack([e[1] for e in ex]))
            err = np.mean((y.ravel() - m) ** 2) / np.mean(m ** 2)
            print(f"{codec} {rate}: relative coding error {10 * np.log10(err + 1e-12):.1f} dB", flush=True)
    q = lambda a: np.clip(np.concatenate(a) * 32767, -32768, 32767).astype(np.int16)
    np.savez(os.path.join(mixing.DATA, "codec_train.npz"), mix=q(mixes), speech=q(speeches))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 120)
