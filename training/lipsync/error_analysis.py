"""Where a model's errors on the real held-out speakers lie (README.md, "Where the held-out errors are"):
frame accuracy away from label changes, and the two kinds of rest-vs-speech error.

Usage: python3 error_analysis.py MODEL.onnx|CHECKPOINT.pt ... (reads data/real_test.npz, gen_real.py)
"""
import os
import sys

import numpy as np
import torch

from onnx_import import load_model
from train import evaluate, load
from visemes import VISEMES

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))


def distance_to_change(values, lengths):
    """Per frame: milliseconds from the frame's centre to the nearest change of `values` within its utterance (a
    change before frame c lies at c * 10 ms, so the frames on both sides of it are 5 ms away); inf without one."""
    out = np.full(len(values), np.inf)
    start = 0
    for n in lengths:
        v = values[start:start + n]
        changes = (np.nonzero(v[1:] != v[:-1])[0] + 1).astype(np.float64)
        if len(changes):
            centres = np.arange(n) + 0.5
            pos = np.searchsorted(changes, centres)
            before = np.abs(centres - changes[np.clip(pos - 1, 0, len(changes) - 1)])
            after = np.abs(changes[np.clip(pos, 0, len(changes) - 1)] - centres)
            out[start:start + n] = np.minimum(before, after) * 10
        start += n
    return out


def main():
    feats, labels, lengths = load(os.path.join(HERE, "data", "real_test.npz"))
    rest = labels == 0
    dist = distance_to_change(labels, lengths)
    rest_dist = distance_to_change(rest, lengths)
    for path in sys.argv[1:]:
        net = load_model(path)
        with torch.no_grad():
            pred = evaluate(net, feats, labels, lengths)
        ok = pred == labels
        rest_ok = (pred == 0) == rest
        print(f"{path}: 9-class {ok.mean():.4f}, rest-vs-speech {rest_ok.mean():.4f}")
        for ms in (20, 30, 50):
            far, rest_far = dist >= ms, rest_dist >= ms
            print(f"  >= {ms} ms from a label change: 9-class {ok[far].mean():.4f} ({far.mean():.2f} of the frames), "
                  f"rest-vs-speech {rest_ok[rest_far].mean():.4f} ({rest_far.mean():.2f})")
        false_rest = (pred == 0) & ~rest
        false_speech = (pred != 0) & rest
        print(f"  rest predicted in speech {false_rest.mean():.4f} of the frames "
              f"({(false_rest & (rest_dist >= 100)).mean():.4f} >= 100 ms inside speech); "
              f"speech predicted in pauses {false_speech.mean():.4f} ({(false_speech & (rest_dist >= 100)).mean():.4f} "
              f">= 100 ms inside a pause)")
        print("  share of each class's frames predicted as rest:",
              {VISEMES[c]: round(float(false_rest[labels == c].mean()), 3) for c in range(1, 9)})


if __name__ == "__main__":
    main()
