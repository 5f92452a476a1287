"""Writes the real-speech test fixture test/fixtures/lipsync/: a few prompts of a held-out speaker
(Allison Smith, US English, asterisk-core-sounds-en-g722, CC BY-SA 3.0) joined with pauses as a
16 kHz mono 16-bit WAV, and its forced-aligned viseme labels (one letter per 10 ms frame).
Run after gen_real.py (uses data/real/allison_en.npz)."""
import json
import os
import random
import wave

import numpy as np

import features
import gen_real
import visemes

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "test", "fixtures", "lipsync")
PROMPTS = ["agent-pass", "vm-goodbye", "conf-getpin", "vm-nomore"]


def main():
    prompts, _ = gen_real.load_speaker(os.path.join(HERE, "data", "real", "allison_en.npz"))
    by_name = {m["name"]: (pcm, m) for pcm, m in prompts}
    group = [by_name[n] for n in PROMPTS if n in by_name]
    x, events, total_ms = gen_real.join(group, random.Random(5), np.random.default_rng(5))
    labels = visemes.frame_labels(events, features.num_frames(len(x)), 0.0, total_ms)
    os.makedirs(OUT, exist_ok=True)
    with wave.open(os.path.join(OUT, "real-speech.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(np.clip(np.round(x * 32768), -32768, 32767).astype("<i2").tobytes())
    with open(os.path.join(OUT, "real-speech.json"), "w", encoding="utf-8") as f:
        json.dump(dict(
            source="asterisk-core-sounds-en-g722 1.6.1 (Debian), speaker Allison Smith, CC BY-SA 3.0; "
                   "prompts " + ", ".join(m["name"] for _, m in group) + "; written by training/lipsync/make_fixture.py",
            text=[m["text"] for _, m in group],
            labels="".join(visemes.VISEMES[k] for k in labels),
        ), f, ensure_ascii=False, indent=1)
    print("fixture:", len(x) / 16000, "s,", [m["name"] for _, m in group])


if __name__ == "__main__":
    main()
