"""Separation v4 candidates, on the same 16 kHz STFT as v3 (512-point FFT, hop 256, sqrt-Hann) and with the same ONNX
interface, so the TypeScript engine and its full-band extension take any of them unchanged: input `mag [B, T, 257]`
(linear magnitudes; the graph takes log(mag² + 1e-10) and normalises per bin), output `mask [B, T, 257]` in (0, 1)
(a sigmoid: bounded, ≤ 1, as the engine's upper-band gain and its tests expect). Every one is non-causal with a
receptive field of at most ±63 frames, so chunks with 64 frames of context each side (MODEL_CONTEXT in
src/inference/separation/model.ts) give exactly the whole-file masks; no statistic is taken over time.

  tcn   (default) v3's temporal conv net, wider and deeper: 256 channels, 512 hidden, 10 blocks with dilations
        1, 2, 4, 8, 16, 16, 8, 4, 2, 1 (receptive field ±62 frames); 2.8 M parameters (v3: 0.70 M, 6 blocks of 192/256).
  band  band-split dual path: the 257 bins in 24 bands (2 bins below 500 Hz, then 4, 8, 16, 32), each band's
        normalised log powers → N channels by its own linear map; 6 blocks of [time: per band, a Conv-TasNet unit over
        frames (layer norm, N→H, PReLU, depthwise conv k=3 dilated 1…32, PReLU, H→N), weights shared by the bands;
        band: per frame, a linear mixing of the 24 bands per channel (`band_rnn=False`) or a bidirectional GRU over
        the bands (`band_rnn=True`)], then a per-band head (N→96→band width) and a sigmoid. Channels last, so the
        norms export as ONNX LayerNormalization.
  v3    the shipped architecture (model.MaskNet c=192, h=256), e.g. to fine-tune the shipped weights (--init-onnx).

Speed of the exported graphs with onnxruntime-node 1.16.3 (the engine's runtime), one thread, the engine's 628-frame
chunks, in audio seconds per second, on the 2-core development machine when it was quiet (ort_check.mjs): v3 750–840×,
tcn 260–270×, band 100–125×, band with the GRU over bands 73× (the floor is 50×; off by default). On a busy machine
the wall-clock figures fall 2–3 fold, the CPU-time ones much less.
"""
import torch
import torch.nn as nn

from model import BINS, MaskNet

TCN_DILATIONS = (1, 2, 4, 8, 16, 16, 8, 4, 2, 1)
BAND_DILATIONS = (1, 2, 4, 8, 16, 32)
DEFAULTS = {
    "tcn": {"arch": "tcn", "c": 256, "h": 512, "dilations": list(TCN_DILATIONS)},
    "band": {"arch": "band", "n": 48, "h": 96, "band_rnn": False, "dilations": list(BAND_DILATIONS)},
    "v3": {"arch": "v3", "c": 192, "h": 256, "dilations": [1, 2, 4, 8, 16, 32]},
}
# tiny versions for the CPU end-to-end check (--tiny): same graphs, few channels
TINY = {
    "tcn": {"arch": "tcn", "c": 32, "h": 48, "dilations": list(TCN_DILATIONS)},
    "band": {"arch": "band", "n": 8, "h": 16, "band_rnn": False, "dilations": list(BAND_DILATIONS)},
    "v3": DEFAULTS["v3"],
}


def band_edges():
    """Band start bins: 2-bin bands to 500 Hz, 4 to 1 kHz, 8 to 2 kHz, 16 to 4 kHz, 32 to 8 kHz (the last has 33)."""
    edges, b = [], 0
    for width, upto in ((2, 16), (4, 32), (8, 64), (16, 128), (32, 256)):
        while b < upto:
            edges.append(b)
            b += width
    return edges + [BINS]


class BandNet(nn.Module):
    def __init__(self, n=48, h=96, band_rnn=False, dilations=BAND_DILATIONS, head=96, rnn_hidden=None):
        super().__init__()
        e = band_edges()
        self.k = k = len(e) - 1
        widths = [e[i + 1] - e[i] for i in range(k)]
        self.w = w = max(widths)
        # bins of band i at [i, :width_i], padded with the band's first bin (then zeroed by `valid`)
        self.register_buffer("index", torch.tensor([[e[i] + (j if j < widths[i] else 0) for j in range(w)]
                                                    for i in range(k)]).reshape(-1), persistent=False)
        self.register_buffer("valid", torch.tensor([[1.0 if j < widths[i] else 0.0 for j in range(w)]
                                                    for i in range(k)]), persistent=False)
        self.register_buffer("back", torch.tensor([i * w + j for i in range(k) for j in range(widths[i])]),
                             persistent=False)
        self.register_buffer("mean", torch.full((1, 1, BINS), -9.0))
        self.register_buffer("std", torch.full((1, 1, BINS), 3.0))
        self.inp_w = nn.Parameter(torch.randn(k, w, n) / w ** 0.5)
        self.inp_b = nn.Parameter(torch.zeros(k, n))
        L = len(dilations)
        self.t_norm = nn.ModuleList([nn.LayerNorm(n) for _ in range(L)])
        self.t_in = nn.ModuleList([nn.Linear(n, h) for _ in range(L)])
        self.t_act1 = nn.ModuleList([nn.PReLU() for _ in range(L)])
        self.t_dw = nn.ModuleList([nn.Conv1d(h, h, 3, padding=d, dilation=d, groups=h) for d in dilations])
        self.t_act2 = nn.ModuleList([nn.PReLU() for _ in range(L)])
        self.t_out = nn.ModuleList([nn.Linear(h, n) for _ in range(L)])
        self.b_norm = nn.ModuleList([nn.LayerNorm(n) for _ in range(L)])
        self.band_rnn = band_rnn
        if band_rnn:
            hid = rnn_hidden or n // 2
            self.b_rnn = nn.ModuleList([nn.GRU(n, hid, batch_first=True, bidirectional=True) for _ in range(L)])
            self.b_out = nn.ModuleList([nn.Linear(2 * hid, n) for _ in range(L)])
        else:
            self.b_mix = nn.ModuleList([nn.Linear(k, k) for _ in range(L)])
            self.b_act = nn.ModuleList([nn.PReLU() for _ in range(L)])
            self.b_out = nn.ModuleList([nn.Linear(n, n) for _ in range(L)])
        self.head_norm = nn.LayerNorm(n)
        self.head_w1 = nn.Parameter(torch.randn(k, n, head) / n ** 0.5)
        self.head_b1 = nn.Parameter(torch.zeros(k, head))
        self.head_act = nn.PReLU()
        self.head_w2 = nn.Parameter(torch.randn(k, head, w) / head ** 0.5)
        self.head_b2 = nn.Parameter(torch.zeros(k, w))
        self.context = sum(dilations)

    def forward(self, mag):  # [B, T, F] -> [B, T, F]
        b, t, _ = mag.shape
        x = (torch.log(mag ** 2 + 1e-10) - self.mean) / self.std
        x = x[:, :, self.index].reshape(b, t, self.k, self.w) * self.valid
        x = torch.einsum("btkw,kwn->btkn", x, self.inp_w) + self.inp_b  # [B, T, K, N]
        for i in range(len(self.t_in)):
            y = self.t_act1[i](self.t_in[i](self.t_norm[i](x)))  # [B, T, K, H]
            hh = y.shape[-1]
            y = y.permute(0, 2, 3, 1).reshape(b * self.k, hh, t)
            y = self.t_dw[i](y).reshape(b, self.k, hh, t).permute(0, 3, 1, 2)
            x = x + self.t_out[i](self.t_act2[i](y))
            z = self.b_norm[i](x)
            if self.band_rnn:
                z = self.b_out[i](self.b_rnn[i](z.reshape(b * t, self.k, -1))[0]).reshape(b, t, self.k, -1)
            else:
                z = self.b_out[i](self.b_act[i](self.b_mix[i](z.transpose(2, 3)).transpose(2, 3)))
            x = x + z
        y = torch.einsum("btkn,knh->btkh", self.head_norm(x), self.head_w1) + self.head_b1
        y = torch.einsum("btkh,khw->btkw", self.head_act(y), self.head_w2) + self.head_b2
        return torch.sigmoid(y.reshape(b, t, self.k * self.w)[:, :, self.back])

    def set_normalisation(self, mean, std):  # per-bin statistics of log(mag² + 1e-10), [257] each
        self.mean.copy_(mean.view(1, 1, -1))
        self.std.copy_(std.view(1, 1, -1))


class TcnNet(MaskNet):
    def set_normalisation(self, mean, std):
        self.mean.copy_(mean.view(1, -1, 1))
        self.std.copy_(std.view(1, -1, 1))


def build(config):
    """A model from its config (DEFAULTS / TINY entries, or a checkpoint's `config`)."""
    c = dict(config)
    arch = c.pop("arch")
    if arch in ("tcn", "v3"):
        return TcnNet(c=c["c"], h=c["h"], dilations=tuple(c["dilations"]))
    if arch == "band":
        return BandNet(n=c["n"], h=c["h"], band_rnn=c.get("band_rnn", False), dilations=tuple(c["dilations"]))
    raise ValueError(f"unknown arch {arch}")


def receptive_field(config):
    return sum(config["dilations"])
