"""The viseme recogniser: 2 non-causal conv layers (60 ms look-ahead) + 1-layer GRU + linear."""
import torch
from torch import nn

N_MELS = 40
N_CLASSES = 9


class VisemeNet(nn.Module):
    def __init__(self, channels=96, hidden=96):
        super().__init__()
        self.register_buffer("mean", torch.zeros(N_MELS))
        self.register_buffer("std", torch.ones(N_MELS))
        self.conv1 = nn.Conv1d(N_MELS, channels, 5, padding=2)
        self.conv2 = nn.Conv1d(channels, channels, 5, padding=4, dilation=2)
        self.gru = nn.GRU(channels, hidden, batch_first=True)
        self.out = nn.Linear(hidden, N_CLASSES)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):  # x [B, T, 40] raw log-mel -> logits [B, T, 9]
        x = (x - self.mean) / self.std
        h = x.transpose(1, 2)
        h = torch.relu(self.conv1(h))
        h = self.drop(torch.relu(self.conv2(h)))
        h, _ = self.gru(h.transpose(1, 2))
        return self.out(self.drop(h))


class Exported(nn.Module):
    """ONNX wrapper: features [1, T, 40] -> posteriors [1, T, 9] (softmax)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, features):
        return torch.softmax(self.net(features), dim=-1)
