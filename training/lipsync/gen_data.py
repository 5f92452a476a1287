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


def make_set(n, langs, voice_variants, seed, use_aug=True):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)

    def babble(n_samples):
        out = np.zeros(n_samples)
        for _ in range(rng.randint(3, 6)):
            lang = rng.choice(langs)
            x, _, _ = synth_16k(textgen.utterance(lang, rng), lang, rng)
            x = np.tile(x, n_samples // max(len(x), 1) + 1)[:n_samples]
            out += np.roll(x, rng.randrange(n_samples)) / (np.std(x) + 1e-9)
        return out

    feats, labels, rms, meta = [], [], [], []
    for i in range(n):
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
        feats.append(features.logmel(x).astype(np.float16))
        labels.append(lab.astype(np.int8))
        rms.append(features.frame_rms(x).astype(np.float32))
        meta.append(dict(lang=lang, variant=var, text=text, aug=desc, **params))
        if i % 200 == 0:
            print(f"  {i}/{n} {voice} {desc}", flush=True)
    lengths = np.array([len(l) for l in labels])
    return dict(feats=np.concatenate(feats), labels=np.concatenate(labels), rms=np.concatenate(rms),
                lengths=lengths), meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", type=int, default=2600)
    ap.add_argument("--test", type=int, default=400)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data"))
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    train_vars, held_vars = variants()
    train_langs = [l for l in textgen.LANGUAGES if l not in HELDOUT_LANGUAGES]
    t0 = time.time()
    # held-out set: half held-out voices on training languages, half held-out languages (any voice)
    test_a, meta_a = make_set(a.test // 2, train_langs, held_vars, seed=2)
    test_b, meta_b = make_set(a.test - a.test // 2, HELDOUT_LANGUAGES, held_vars + train_vars, seed=3)
    test = {k: np.concatenate([test_a[k], test_b[k]]) for k in test_a}
    np.savez(os.path.join(a.out, "test.npz"), **test)
    train, meta_t = make_set(a.train, train_langs, train_vars, seed=1)
    np.savez(os.path.join(a.out, "train.npz"), **train)
    with open(os.path.join(a.out, "meta.json"), "w") as f:
        json.dump(dict(heldout_variants=held_vars, heldout_languages=HELDOUT_LANGUAGES,
                       train_languages=train_langs, train=meta_t, test=meta_a + meta_b), f, ensure_ascii=False)
    hours = lambda d: d["labels"].shape[0] / 100 / 3600
    print(f"train {hours(train):.2f} h, test {hours(test):.2f} h, {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
