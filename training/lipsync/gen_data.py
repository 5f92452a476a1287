"""Generates the training and held-out sets: espeak-ng speech in many languages/voices with
frame-level viseme labels from espeak's phoneme events, augmented, as log-mel features.

Usage: python3 gen_data.py [--train N] [--test N] [--out DIR]
"""
import argparse
import json
import os
import random
import time

import numpy as np
from scipy import signal

import augment
import espeak_synth
import features
import textgen
import visemes

VARIANT_DIR = "/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v"
HELDOUT_LANGUAGES = ["nl", "uk", "hu"]


def variants():
    names = sorted(v for v in os.listdir(VARIANT_DIR) if " " not in v)
    rng = random.Random(1234)
    held = sorted(rng.sample(names, 14))
    return [""] + [v for v in names if v not in held], held


def synth_16k(text, voice, rng):
    rate = rng.randint(90, 300)
    pitch = rng.randint(10, 90)
    prange = rng.randint(10, 100)
    pcm, events = espeak_synth.synth(text, voice, rate, pitch, prange)
    x = signal.resample_poly(pcm.astype(np.float64) / 32768.0, 320, 441)
    return x, events, dict(rate=rate, pitch=pitch, range=prange)


def make_utterance(i, langs, voice_variants, seed, use_aug=True):
    """Utterance i of a set; its randomness depends only on (seed, i), so any subset can be redone."""
    rng = random.Random(f"{seed}-{i}")
    nrng = np.random.default_rng([seed, i])

    def babble(n_samples):
        out = np.zeros(n_samples)
        for _ in range(rng.randint(3, 6)):
            lang = rng.choice(langs)
            x, _, _ = synth_16k(textgen.utterance(lang, rng), lang, rng)
            x = np.tile(x, n_samples // max(len(x), 1) + 1)[:n_samples]
            out += np.roll(x, rng.randrange(n_samples)) / (np.std(x) + 1e-9)
        return out

    lang = langs[i % len(langs)]
    var = rng.choice(voice_variants)
    voice = lang + ("+" + var if var else "")
    text = textgen.utterance(lang, rng)
    x, events, params = synth_16k(text, voice, rng)
    speech_ms = len(x) / 16.0
    lead, trail = rng.uniform(0.05, 1.0), rng.uniform(0.05, 1.0)
    x = np.concatenate([np.zeros(int(lead * 16000)), x, np.zeros(int(trail * 16000))])
    n_frames = features.num_frames(len(x))
    lab = visemes.frame_labels(events, n_frames, int(lead * 16000) / 16.0, speech_ms)
    if use_aug and rng.random() < 0.9:
        x, desc = augment.augment(x, nrng, babble)
    else:
        x = x * 10 ** (rng.uniform(-30, -6) / 20) / (np.max(np.abs(x)) + 1e-9)
        desc = "clean"
    meta = dict(i=i, lang=lang, variant=var, text=text, aug=desc, **params)
    return features.logmel(x).astype(np.float16), lab.astype(np.int8), features.frame_rms(x).astype(np.float32), meta


def save_part(path, items):
    feats, labels, rms, meta = zip(*items)
    np.savez(path, feats=np.concatenate(feats), labels=np.concatenate(labels), rms=np.concatenate(rms),
             lengths=np.array([len(l) for l in labels]))
    with open(path + ".json", "w") as f:
        json.dump(list(meta), f, ensure_ascii=False)


def worker(a):
    """Makes utterances [start, end) of one set into part files of 50, skipping known crashers.
    libespeak-ng occasionally crashes on some voice/text combination; the driver restarts us."""
    langs, voices = SETS[a.set]()
    skip = {int(v) for v in a.skip.split(",") if v}
    items, first = [], a.start
    for i in range(a.start, a.end):
        with open(os.path.join(a.out, "progress"), "w") as f:
            f.write(str(i))
        if i not in skip:
            items.append(make_utterance(i, langs, voices, SEEDS[a.set]))
        if (i + 1 - a.start) % 50 == 0 or i == a.end - 1:
            if items:
                save_part(os.path.join(a.out, f"{a.set}_{first:05d}_{i:05d}.npz"), items)
            items, first = [], i + 1


def train_variants():
    return variants()[0]


def heldout_variants():
    return variants()[1]


TRAIN_LANGS = [l for l in textgen.LANGUAGES if l not in HELDOUT_LANGUAGES]
SETS = {
    "train": lambda: (TRAIN_LANGS, train_variants()),
    # held-out: held-out voices on the training languages, and held-out languages with any voice
    "test_voices": lambda: (TRAIN_LANGS, heldout_variants()),
    "test_langs": lambda: (HELDOUT_LANGUAGES, heldout_variants() + train_variants()),
}
SEEDS = {"train": 1, "test_voices": 2, "test_langs": 3}


def run_set(name, n, out):
    """Drives workers until utterances [0, n) of a set exist as part files (crashers skipped)."""
    import glob
    import subprocess
    import sys
    skip = []
    while True:
        parts = sorted(glob.glob(os.path.join(out, f"{name}_*.npz")))
        done = max((int(p.rsplit("_", 1)[1][:5]) for p in parts), default=-1) + 1
        if done >= n:
            break
        r = subprocess.run([sys.executable, __file__, "--worker", "--set", name, "--start", str(done), "--end", str(n),
                            "--skip", ",".join(map(str, skip)), "--out", out])
        if r.returncode != 0:
            with open(os.path.join(out, "progress")) as f:
                bad = int(f.read())
            print(f"  worker crashed (rc {r.returncode}) at {name} utterance {bad}; skipping it", flush=True)
            skip.append(bad)
    parts = sorted(glob.glob(os.path.join(out, f"{name}_*.npz")))
    arrays = [np.load(p) for p in parts]
    meta = sum((json.load(open(p + ".json", encoding="utf-8")) for p in parts), [])
    print(f"  {name}: {len(meta)} utterances, skipped {skip}", flush=True)
    return {k: np.concatenate([a[k] for a in arrays]) for k in arrays[0].files}, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=2400)
    ap.add_argument("--test", type=int, default=400)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--set", default="train")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--end", type=int, default=0)
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    if a.worker:
        return worker(a)
    parts_dir = os.path.join(a.out, "parts")
    os.makedirs(parts_dir, exist_ok=True)
    t0 = time.time()
    test_a, meta_a = run_set("test_voices", a.test // 2, parts_dir)
    test_b, meta_b = run_set("test_langs", a.test - a.test // 2, parts_dir)
    test = {k: np.concatenate([test_a[k], test_b[k]]) for k in test_a}
    np.savez(os.path.join(a.out, "test.npz"), **test)
    train, meta_t = run_set("train", a.train, parts_dir)
    np.savez(os.path.join(a.out, "train.npz"), **train)
    train_vars, held_vars = variants()
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(dict(heldout_variants=held_vars, heldout_languages=HELDOUT_LANGUAGES,
                       train_languages=TRAIN_LANGS, train=meta_t, test=meta_a + meta_b), f, ensure_ascii=False)
    hours = lambda d: d["labels"].shape[0] / 100 / 3600
    print(f"train {hours(train):.2f} h, test {hours(test):.2f} h, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
