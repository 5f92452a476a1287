"""Class-prior calibration of the viseme model on real speech of the TRAINING speakers (an experiment; see
README.md, "Tried after v2": it was not shipped).

A per-class offset added to the logits, i.e. to the bias of the output layer, moves each class's decision
threshold without touching anything else of the network. The offsets are chosen by coordinate ascent (each
class's offset on a grid in turn, a few sweeps) to maximise 9-class + rest-vs-speech frame accuracy on
data/real_train.npz: the speakers held out for evaluation are never used to choose them, and part of the
synthetic training set is mixed in (`--synthetic-weight`) so the offsets cannot trade away what the model does on
espeak voices. It prints the scores before and after (the held-out real speakers too, for the report only),
writes them to calibration.json, and writes the calibrated weights as a checkpoint for export.py.

Usage: python3 calibrate.py [--onnx ../../models/lipsync/viseme.onnx] [--out checkpoints/calibrated.pt]
"""
import argparse
import json
import os

import numpy as np
import torch

from metrics import scores
from onnx_import import load_onnx

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
GRID = np.arange(-1.5, 1.51, 0.1)


@torch.no_grad()
def logits_of(net, feats, lengths):
    out = np.zeros((len(feats), 9), np.float32)
    s = 0
    for n in lengths:
        out[s:s + n] = net(torch.from_numpy(feats[s:s + n].astype(np.float32))[None])[0].numpy()
        s += n
    return out


def objective(sets, offsets):
    """Weighted mean over the sets of 9-class frame accuracy + rest-vs-speech accuracy."""
    total = 0.0
    for logits, labels, weight in sets:
        pred = (logits + offsets).argmax(1)
        total += weight * ((pred == labels).mean() + ((pred == 0) == (labels == 0)).mean())
    return total


def calibrate(sets, sweeps=3):
    offsets = np.zeros(9, np.float32)
    best = objective(sets, offsets)
    for _ in range(sweeps):
        for k in range(1, 9):  # class 0 (X) is the reference
            for v in GRID:
                trial = offsets.copy()
                trial[k] = v
                value = objective(sets, trial)
                if value > best + 1e-6:
                    best, offsets = value, trial
    return offsets, best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--onnx", default=os.path.join(HERE, "..", "..", "models", "lipsync", "viseme.onnx"))
    ap.add_argument("--out", default=os.path.join(HERE, "checkpoints", "calibrated.pt"))
    ap.add_argument("--synthetic-weight", type=float, default=0.5)
    ap.add_argument("--synthetic-utterances", type=int, default=600, help="of the synthetic training set")
    a = ap.parse_args()
    net = load_onnx(a.onnx)
    rt = np.load(os.path.join(a.data, "real_train.npz"))
    sets = [(logits_of(net, rt["feats"], rt["lengths"]), rt["labels"].astype(np.int64), 1.0)]
    if a.synthetic_weight > 0:
        tr = np.load(os.path.join(a.data, "train.npz"))
        lengths = tr["lengths"][:a.synthetic_utterances]
        n = int(lengths.sum())
        sets.append((logits_of(net, tr["feats"][:n], lengths), tr["labels"][:n].astype(np.int64), a.synthetic_weight))
    offsets, _ = calibrate(sets)
    report = {"offsets": [round(float(v), 2) for v in offsets]}
    for name, (logits, labels, _) in zip(["real_train", "synthetic_train"], sets):
        report[name] = dict(before=scores(logits.argmax(1), labels), after=scores((logits + offsets).argmax(1), labels))
    te_path = os.path.join(a.data, "real_test.npz")
    if os.path.exists(te_path):  # printed only: evaluate.py is the held-out report
        te = np.load(te_path)
        logits, labels = logits_of(net, te["feats"], te["lengths"]), te["labels"].astype(np.int64)
        report["real_heldout"] = dict(before=scores(logits.argmax(1), labels), after=scores((logits + offsets).argmax(1), labels))
    print(json.dumps(report, indent=1))
    with torch.no_grad():
        net.out.bias += torch.from_numpy(offsets)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    torch.save(net.state_dict(), a.out)
    with open(os.path.join(HERE, "calibration.json"), "w") as f:
        json.dump(report, f, indent=1)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
