"""Loads the weights of a shipped models/lipsync/viseme.onnx back into VisemeNet (to evaluate the
shipped model or to warm-start training from it). Checked against golden.json's posteriors."""
import numpy as np
import onnx
import torch
from onnx import numpy_helper

from model import VisemeNet


def _reorder(zrh, h):
    """ONNX GRU gate blocks (z, r, h) -> PyTorch's (r, z, n)."""
    return np.concatenate([zrh[h:2 * h], zrh[:h], zrh[2 * h:3 * h]])


def load_onnx(path):
    m = onnx.load(path)
    w = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    gru = next(n for n in m.graph.node if n.op_type == "GRU")
    matmul = next(n for n in m.graph.node if n.op_type == "MatMul")
    W, R, B = (w[gru.input[k]][0] for k in range(1, 4))
    h = R.shape[1]
    state = {
        "mean": w["net.mean"], "std": w["net.std"],
        "conv1.weight": w["net.conv1.weight"], "conv1.bias": w["net.conv1.bias"],
        "conv2.weight": w["net.conv2.weight"], "conv2.bias": w["net.conv2.bias"],
        "gru.weight_ih_l0": _reorder(W, h), "gru.weight_hh_l0": _reorder(R, h),
        "gru.bias_ih_l0": _reorder(B[:3 * h], h), "gru.bias_hh_l0": _reorder(B[3 * h:], h),
        "out.weight": w[matmul.input[1]].T, "out.bias": w["net.out.bias"],
    }
    net = VisemeNet(channels=w["net.conv1.weight"].shape[0], hidden=h)
    net.load_state_dict({k: torch.from_numpy(np.array(v, dtype=np.float32)) for k, v in state.items()})
    return net.eval()


def load_model(path):
    """A VisemeNet in eval mode from an exported .onnx or from a train.py checkpoint (.pt)."""
    if path.endswith(".onnx"):
        return load_onnx(path)
    net = VisemeNet()
    net.load_state_dict(torch.load(path))
    return net.eval()


if __name__ == "__main__":
    import json
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    models = os.path.join(here, "..", "..", "models", "lipsync")
    net = load_onnx(sys.argv[1] if len(sys.argv) > 1 else os.path.join(models, "viseme.onnx"))
    g = json.load(open(os.path.join(models, "golden.json")))
    with torch.no_grad():
        p = torch.softmax(net(torch.tensor(g["features"], dtype=torch.float32)[None]), -1)[0].numpy()
    print("max |posterior - golden|", float(np.abs(p - np.array(g["posteriors"])).max()))
