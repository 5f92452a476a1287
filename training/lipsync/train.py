"""Trains VisemeNet on data/train.npz (synthetic) and data/real_train.npz (real speech of the training
speakers, gen_real.py; a --real-share of the crops), reports held-out frame accuracy on data/test.npz
and, when present, data/real_test.npz (monitoring only: the checkpoint is the last step, never picked
on a held-out set).

Usage: python3 train.py [--steps N] [--minutes M] [--data DIR] [--out checkpoints/viseme.pt]
                        [--init model.onnx] [--lr 3e-3] [--real-share 0.35]
--init warm-starts from an exported model (its weights and its frozen feature normalisation).
The schedule is step-based (reproducible); --minutes is only a safety cap, unless --anneal-by-time:
then the schedule runs to the end of --minutes or --steps, whichever comes first (so a run on a busy
machine still ends annealed).
Single thread on purpose (shared machine).
"""
import argparse
import math
import os
import time

import numpy as np
import torch
from torch import nn

from model import VisemeNet

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    d = np.load(path)
    return d["feats"].astype(np.float32), d["labels"].astype(np.int64), d["lengths"]


@torch.no_grad()
def evaluate(net, feats, labels, lengths):
    net.eval()
    pred = np.zeros(len(labels), np.int64)
    start = 0
    for n in lengths:
        x = torch.from_numpy(feats[start:start + n])[None]
        pred[start:start + n] = net(x)[0].argmax(-1).numpy()
        start += n
    net.train()
    return pred


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=2800)
    ap.add_argument("--minutes", type=float, default=180)
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--out", default=os.path.join(HERE, "checkpoints", "viseme.pt"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--anneal-by-time", action="store_true")
    ap.add_argument("--init", default="")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--real-share", type=float, default=0.35)
    a = ap.parse_args()
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    feats, labels, _ = load(os.path.join(a.data, "train.npz"))
    tfeats, tlabels, tlengths = load(os.path.join(a.data, "test.npz"))
    real_path = os.path.join(a.data, "real_train.npz")
    rfeats, rlabels = (load(real_path)[:2]) if os.path.exists(real_path) and a.real_share > 0 else (None, None)
    rtest_path = os.path.join(a.data, "real_test.npz")
    rtest = load(rtest_path) if os.path.exists(rtest_path) else None
    print(f"train frames {len(labels)} synthetic + {0 if rlabels is None else len(rlabels)} real, "
          f"test frames {len(tlabels)} synthetic + {0 if rtest is None else len(rtest[1])} real", flush=True)

    if a.init:
        from onnx_import import load_onnx
        net = load_onnx(a.init).train()
        print("warm start from", a.init, flush=True)
    else:
        net = VisemeNet()
        net.mean.copy_(torch.from_numpy(feats.mean(0)))
        net.std.copy_(torch.from_numpy(feats.std(0) + 1e-3))
    print("params", sum(p.numel() for p in net.parameters()), flush=True)
    counts = np.bincount(labels, minlength=9).astype(np.float64)
    if rlabels is not None:
        counts = counts / counts.sum() * (1 - a.real_share) + \
            np.bincount(rlabels, minlength=9) / len(rlabels) * a.real_share
    weights = torch.tensor((counts.sum() / counts / 9) ** 0.3, dtype=torch.float32)  # mild re-balancing
    loss_fn = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.05)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)

    seg, batch = 300, 32
    budget = a.minutes * 60
    t0 = time.time()
    step, best = 0, 0.0
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    next_eval = 0.5
    while True:
        frac = step / a.steps
        if a.anneal_by_time:
            frac = max(frac, (time.time() - t0) / budget)
        if frac >= 1.0 or time.time() - t0 > budget:
            break
        for g in opt.param_groups:
            g["lr"] = a.lr * (0.5 * (1 + math.cos(math.pi * frac)) * 0.97 + 0.03)
        n_real = 0 if rlabels is None else int(rng.binomial(batch, a.real_share))
        idx = rng.integers(0, len(labels) - seg, batch - n_real)[:, None] + np.arange(seg)[None]
        xs, ys = [feats[idx]], [labels[idx]]
        if n_real:
            ridx = rng.integers(0, len(rlabels) - seg, n_real)[:, None] + np.arange(seg)[None]
            xs.append(rfeats[ridx])
            ys.append(rlabels[ridx])
        x = torch.from_numpy(np.concatenate(xs))
        y = torch.from_numpy(np.concatenate(ys))
        x = x + torch.empty(batch, 1, 1).uniform_(-1.5, 1.5)  # gain jitter (log domain)
        for b in range(batch):  # frequency masking
            if rng.random() < 0.5:
                f0 = rng.integers(0, 36)
                x[b, :, f0:f0 + rng.integers(1, 5)] = net.mean[f0:f0 + 4].mean()
        loss = loss_fn(net(x).reshape(-1, 9), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        opt.step()
        step += 1
        if step % 50 == 0:
            print(f"step {step} {time.time() - t0:.0f}s loss {loss.item():.3f} lr {opt.param_groups[0]['lr']:.2e}",
                  flush=True)
            torch.save(net.state_dict(), a.out)  # checkpoint (the last step, see above)
        if frac >= next_eval:
            next_eval += 0.5
            pred = evaluate(net, tfeats, tlabels, tlengths)
            acc = (pred == tlabels).mean()
            msg = f"== step {step} held-out frame accuracy {acc:.4f}"
            if rtest is not None:
                rpred = evaluate(net, *rtest)
                msg += f"; real speakers {(rpred == rtest[1]).mean():.4f}, rest-vs-speech " \
                       f"{((rpred == 0) == (rtest[1] == 0)).mean():.4f}"
            print(msg, flush=True)
            torch.save(net.state_dict(), a.out)
    pred = evaluate(net, tfeats, tlabels, tlengths)
    print(f"== final step {step} held-out frame accuracy {(pred == tlabels).mean():.4f} "
          f"({time.time() - t0:.0f} s)", flush=True)
    torch.save(net.state_dict(), a.out)


if __name__ == "__main__":
    main()
