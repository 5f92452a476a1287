"""Mask net on STFT magnitude: 16 kHz, 512-point FFT, hop 256, sqrt-Hann window, 257 bins.

Input  `mag`  [B, T, 257] linear magnitude of the mixture's STFT (the ONNX graph takes the log itself).
Output `mask` [B, T, 257] in (0, 1), applied to the complex STFT to get the speech estimate.

Body: a non-causal temporal conv net (Conv-TasNet-style blocks: 1x1 expand, PReLU, dilated depthwise conv, PReLU,
1x1 project, residual) with dilations 1..32: receptive field ±63 frames (±1.0 s), so chunked inference with 64
frames of context on each side is exactly equal to whole-file inference. Normalisation is per frame over channels
(no statistics over time), which keeps chunks independent of their neighbours.
"""
import torch
import torch.nn as nn

SR, NFFT, HOP = 16000, 512, 256
BINS = NFFT // 2 + 1


class FrameNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.g = nn.Parameter(torch.ones(1, c, 1))
        self.b = nn.Parameter(torch.zeros(1, c, 1))

    def forward(self, x):  # [B, C, T]
        m = x.mean(1, keepdim=True)
        v = ((x - m) ** 2).mean(1, keepdim=True)
        return (x - m) / torch.sqrt(v + 1e-5) * self.g + self.b


class Block(nn.Module):
    def __init__(self, c, h, d):
        super().__init__()
        self.net = nn.Sequential(
            FrameNorm(c), nn.Conv1d(c, h, 1), nn.PReLU(h),
            nn.Conv1d(h, h, 3, padding=d, dilation=d, groups=h), nn.PReLU(h), nn.Conv1d(h, c, 1))

    def forward(self, x):
        return x + self.net(x)


class MaskNet(nn.Module):
    def __init__(self, c=256, h=384, dilations=(1, 2, 4, 8, 16, 32)):
        super().__init__()
        self.register_buffer("mean", torch.full((1, BINS, 1), -9.0))
        self.register_buffer("std", torch.full((1, BINS, 1), 3.0))
        self.inp = nn.Conv1d(BINS, c, 1)
        self.blocks = nn.Sequential(*[Block(c, h, d) for d in dilations])
        self.out = nn.Sequential(FrameNorm(c), nn.Conv1d(c, BINS, 1))
        self.context = sum(dilations)

    def forward(self, mag):  # [B, T, F]
        x = torch.log(mag.transpose(1, 2) ** 2 + 1e-10)
        x = (x - self.mean) / self.std
        x = self.blocks(self.inp(x))
        return torch.sigmoid(self.out(x)).transpose(1, 2)


def window():
    return torch.hann_window(NFFT, periodic=True).sqrt()


def stft(x):  # [B, N] -> complex [B, F, T]; zero padding at the edges, as the TypeScript engine does
    return torch.stft(x, NFFT, HOP, window=window(), center=True, pad_mode="constant", return_complex=True)


def istft(X, length):
    return torch.istft(X, NFFT, HOP, window=window(), center=True, length=length)


def separate(model, mix):  # [B, N] -> speech estimate [B, N]
    X = stft(mix)
    mask = model(X.abs().transpose(1, 2)).transpose(1, 2)
    return istft(X * mask, mix.shape[-1])


def si_sdr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    a = (est * ref).sum(-1, keepdim=True) / ((ref ** 2).sum(-1, keepdim=True) + eps)
    t = a * ref
    return 10 * torch.log10(((t ** 2).sum(-1) + eps) / (((est - t) ** 2).sum(-1) + eps))


def speech_loss(est, m, s):
    """−SI-SDR of the speech estimate (examples with speech) − 0.5·SI-SDR of the ambience estimate (all) + 0.5 × the
    speech estimate's energy relative to the mixture in dB, floored at −40 dB (examples without speech: a song alone
    must leave the speech stem silent)."""
    has = s.pow(2).sum(-1) > 0
    loss = -si_sdr(est[has], s[has]).mean() - 0.5 * si_sdr(m - est, m - s).mean()
    if (~has).any():
        ratio = est[~has].pow(2).sum(-1) / (m[~has].pow(2).sum(-1) + 1e-10)
        loss = loss + 0.5 * (10 * torch.log10(ratio + 1e-4)).mean()
    return loss
