"""Exports checkpoints/last.pt to models/separation/separator.onnx (input `mag` [1, T, 257], output `mask`
[1, T, 257], T dynamic) and writes models/separation/golden.json (a deterministic input and torch's output) for
the TypeScript test. `--random` exports an untrained net (for wiring tests before training)."""
import argparse
import json
import os

import numpy as np
import torch

from model import BINS, MaskNet

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "models", "separation")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--random", action="store_true")
    ap.add_argument("--checkpoint", default=os.path.join(HERE, "checkpoints", "last.pt"))
    args = ap.parse_args()
    torch.set_num_threads(1)
    model = MaskNet(c=192, h=256)
    if not args.random:
        model.load_state_dict(torch.load(args.checkpoint)["model"])
    model.eval()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "separator.onnx")
    dummy = torch.rand(1, 200, BINS)
    torch.onnx.export(model, dummy, path, input_names=["mag"], output_names=["mask"],
                      dynamic_axes={"mag": {1: "frames"}, "mask": {1: "frames"}}, opset_version=17)
    # Golden: 12 frames of a deterministic pattern.
    t = np.arange(12)[:, None]
    k = np.arange(BINS)[None, :]
    mag = (0.01 + 0.5 * np.abs(np.sin(0.37 * t + 0.11 * k)) * np.exp(-k / 120.0)).astype(np.float32)
    with torch.no_grad():
        mask = model(torch.from_numpy(mag)[None])[0].numpy()
    with open(os.path.join(OUT, "golden.json"), "w") as fh:
        json.dump({"frames": 12, "bins": BINS, "mag": [round(float(v), 7) for v in mag.ravel()],
                   "mask": [round(float(v), 6) for v in mask.ravel()]}, fh)
    n = sum(p.numel() for p in model.parameters())
    print(f"exported {path}: {n} parameters, {os.path.getsize(path) / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
