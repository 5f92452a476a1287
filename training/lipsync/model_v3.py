"""Viseme v3 candidates for the GPU run (train_gpu.py): more context than the shipped VisemeNet (model.py) at a cost
per frame the engine can afford, with the same ONNX interface (features [1, T, 40] raw log-mel → posteriors
[1, T, 9]) and the same streaming assumptions (src/inference/lipsync/viseme-model.ts runs chunks with 100 frames
of left and 50 of right context): a non-causal convolution stack whose look-ahead stays under 50 frames, then a
causal GRU that the left context warms up.

`tcn`: per-band normalisation (frozen in the graph) → Conv1d(40→C, k5) → ReLU → residual blocks of a depthwise
dilated Conv1d(k5, dilation d) and a pointwise Conv1d with BatchNorm (folded into the convolution on export) and ReLU
→ GRU(H) → Linear(H→9). Receptive field of the convolutions: ±(2 + 2·Σd) frames (±32 with d = 1, 2, 4, 8: 320 ms
each side, against ±6 for the shipped model).
"""
import torch
from torch import nn

N_MELS = 40
N_CLASSES = 9
ENGINE_RIGHT_CONTEXT = 50  # frames after a chunk that the engine runs and discards (viseme-model.ts)

DEFAULTS = {
    # ~1.7× the shipped model's multiply-adds per frame
    "tcn": {"channels": 128, "hidden": 128, "dilations": [1, 2, 4, 8], "dropout": 0.1},
    # a little under the shipped model's multiply-adds per frame (its speed on onnxruntime), 5× its look-ahead
    "tcn_s": {"channels": 96, "hidden": 80, "dilations": [1, 2, 4, 8], "dropout": 0.1},
}
TINY = {
    "tcn": {"channels": 16, "hidden": 16, "dilations": [1, 2], "dropout": 0.1},
    "tcn_s": {"channels": 12, "hidden": 12, "dilations": [1, 2], "dropout": 0.1},
}


class Block(nn.Module):
    def __init__(self, channels, dilation, dropout):
        super().__init__()
        self.dw = nn.Conv1d(channels, channels, 5, padding=2 * dilation, dilation=dilation, groups=channels)
        self.pw = nn.Conv1d(channels, channels, 1)
        self.bn = nn.BatchNorm1d(channels)
        self.drop = nn.Dropout(dropout)

    def forward(self, h):
        return h + self.drop(torch.relu(self.bn(self.pw(self.dw(h)))))


class ContextNet(nn.Module):
    def __init__(self, channels=128, hidden=128, dilations=(1, 2, 4, 8), dropout=0.1):
        super().__init__()
        self.register_buffer("mean", torch.zeros(N_MELS))
        self.register_buffer("std", torch.ones(N_MELS))
        self.inp = nn.Conv1d(N_MELS, channels, 5, padding=2)
        self.blocks = nn.ModuleList(Block(channels, d, dropout) for d in dilations)
        self.gru = nn.GRU(channels, hidden, batch_first=True)
        self.out = nn.Linear(hidden, N_CLASSES)
        self.drop = nn.Dropout(dropout)
        self.lookahead = 2 + 2 * sum(dilations)
        if self.lookahead >= ENGINE_RIGHT_CONTEXT:
            raise ValueError(f"look-ahead {self.lookahead} frames ≥ the engine's right context {ENGINE_RIGHT_CONTEXT}")

    def set_normalisation(self, mean, std):
        self.mean.copy_(torch.as_tensor(mean, dtype=torch.float32))
        self.std.copy_(torch.as_tensor(std, dtype=torch.float32))

    def forward(self, x):  # x [B, T, 40] raw log-mel -> logits [B, T, 9]
        h = ((x - self.mean) / self.std).transpose(1, 2)
        h = torch.relu(self.inp(h))
        for b in self.blocks:
            h = b(h)
        h, _ = self.gru(self.drop(h).transpose(1, 2))
        return self.out(self.drop(h))


def build(cfg):
    return ContextNet(cfg["channels"], cfg["hidden"], tuple(cfg["dilations"]), cfg.get("dropout", 0.1))


def macs_per_frame(net):
    """Multiply-adds per output frame (convolutions, GRU, output layer), to compare costs with the shipped model."""
    total = 0
    for m in net.modules():
        if isinstance(m, nn.Conv1d):
            total += m.out_channels * (m.in_channels // m.groups) * m.kernel_size[0]
        elif isinstance(m, nn.GRU):
            total += 3 * m.hidden_size * (m.input_size + m.hidden_size)
        elif isinstance(m, nn.Linear):
            total += m.in_features * m.out_features
    return total
