"""Held-out evaluation: fixed, seeded 10 s mixtures from the test pools (speakers, levels, voices and ambience files
never seen in training), per background type {music, sfx, noise} × SNR {0, 5} dB × speech kind {real, tts}.
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


def build(n_per=8, seconds=10):
    rng = np.random.default_rng(99)
    sp, amb = mixing.load_pools("test")
    L = seconds * mixing.SR
    sets = []
    speech_idx = {"real": np.concatenate([sp.indices(c) for c in sp.catnames if c.startswith("real")]),
                  "tts": sp.indices("tts")}
    for cat in ("music", "sfx", "noise"):
        for snr in (0, 5):
            for kind, idx in speech_idx.items():
                for _ in range(n_per):
                    s = mixing.speech_segment(rng, sp, L, idx)
                    if cat == "noise":
                        a = mixing.synth_noise(rng, L)
                    else:
                        a = mixing.amb_segment(rng, amb, L, amb.indices(cat))
                    m, s = mixing.mix(rng, s, a, snr, gain=False)
                    sets.append((f"{cat}@{snr}dB/{kind}", m, s))
    return sets


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
    print(json.dumps(out, indent=1))
    with open(os.environ.get("RESULTS", os.path.join(HERE, "results.json")), "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
