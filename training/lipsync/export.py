"""Exports the trained checkpoint to models/lipsync/viseme.onnx and writes the golden vector
models/lipsync/golden.json (synthetic signal -> features -> posteriors) for the TS tests."""
import argparse
import json
import os

import numpy as np
import torch

import features
from model import Exported, VisemeNet

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "models", "lipsync")

GOLDEN_SAMPLES = 4800


def golden_signal():
    """Must match goldenSignal() in test/lipsync/features.test.ts."""
    n = np.arange(GOLDEN_SAMPLES, dtype=np.float64)
    t = n / 16000.0
    x = 0.4 * np.sin(2 * np.pi * 220 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 5 * t)) \
        + 0.15 * np.sin(2 * np.pi * (1000 + 2000 * t) * t)
    x[:800] = 0.0
    return x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default=os.path.join(HERE, "checkpoints", "viseme.pt"))
    ap.add_argument("--out", default=MODELS)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    net = VisemeNet()
    net.load_state_dict(torch.load(a.ckpt))
    net.eval()
    model = Exported(net).eval()
    onnx_path = os.path.join(a.out, "viseme.onnx")
    dummy = torch.zeros(1, 50, 40)
    torch.onnx.export(model, dummy, onnx_path, input_names=["features"], output_names=["posteriors"],
                      dynamic_axes={"features": {0: "batch", 1: "time"}, "posteriors": {0: "batch", 1: "time"}},
                      opset_version=13, do_constant_folding=True)
    import onnx
    m = onnx.load(onnx_path)
    onnx.checker.check_model(m)
    meta = {"classes": "X A B C D E F G H", "features": "log-mel 40 x 100 fps, see training/lipsync/FEATURES.md",
            "lookahead_frames": "6"}
    for k, v in meta.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, onnx_path)

    feats = features.logmel(golden_signal())
    with torch.no_grad():
        post = model(torch.from_numpy(feats)[None])[0].numpy()
    golden = {
        "description": "golden vector: signal from golden_signal() in training/lipsync/export.py -> "
                       "features (features.py) -> posteriors (PyTorch, before ONNX export)",
        "samples": GOLDEN_SAMPLES,
        "features": [[round(float(v), 5) for v in row] for row in feats],
        "posteriors": [[round(float(v), 6) for v in row] for row in post],
    }
    with open(os.path.join(a.out, "golden.json"), "w") as f:
        json.dump(golden, f, separators=(",", ":"))
    print("wrote", onnx_path, os.path.getsize(onnx_path), "bytes; params",
          sum(p.numel() for p in net.parameters()))


if __name__ == "__main__":
    main()
