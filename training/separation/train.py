"""Trains MaskNet on one CPU thread for a wall-clock budget.

Loss (speech_loss): −SI-SDR(speech estimate) − 0.5·SI-SDR(mixture − speech estimate vs. mixture − speech), i.e. both
stems the engine writes, plus, for examples without speech, 0.5 × the speech estimate's energy relative to the mixture
(dB, floored at −40). Batches: fresh on-the-fly mixtures (mixing.example, `--silent` of them ambience alone,
mixing.example_without_speech) plus 25 % codec round-trip mixtures (codec.py). Adam, lr 1e-3 → 5e-5 cosine over the budget, gradient clipping 5. Checkpoints to checkpoints/last.pt
every few minutes; log to data/train_log.jsonl.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch

import mixing
from model import MaskNet, separate, si_sdr, speech_loss

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minutes", type=float, default=float(os.environ.get("TRAIN_MINUTES", 45)))
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--init-onnx", help="start from the weights of an exported model (fine-tuning), e.g. the shipped one")
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate (cosine decay to 5e-5)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--silent", type=int, default=1, help="examples per batch without speech (ambience alone, often sung)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    length = int(args.seconds * mixing.SR)
    sp, amb = mixing.load_pools("train")
    codec_path = os.path.join(mixing.DATA, "codec_train.npz")
    if os.path.exists(codec_path):
        codec = np.load(codec_path)
        cmix, csp = codec["mix"], codec["speech"]
    else:  # codec.py not run (yet): every example is made on the fly
        print(f"no {codec_path}: training without codec round trips", flush=True)
        cmix = csp = None
    n_codec = 2 if cmix is not None else 0
    vsp, vamb = mixing.load_pools("test")
    vrng = np.random.default_rng(123)
    val = [mixing.mix(vrng, mixing.speech_segment(vrng, vsp, 5 * mixing.SR), mixing.ambience(vrng, vamb, 5 * mixing.SR), 0.0)
           for _ in range(32)]
    vm = torch.from_numpy(np.stack([v[0] for v in val]))
    vs = torch.from_numpy(np.stack([v[1] for v in val]))

    model = MaskNet(c=192, h=256)
    ckdir = os.path.join(HERE, "checkpoints")
    os.makedirs(ckdir, exist_ok=True)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    step, spent = 0, 0.0
    if args.resume and os.path.exists(os.path.join(ckdir, "last.pt")):
        ck = torch.load(os.path.join(ckdir, "last.pt"))
        model.load_state_dict(ck["model"]); opt.load_state_dict(ck["opt"]); step, spent = ck["step"], ck["spent"]
    elif args.init_onnx:
        model.load_state_dict(state_from_onnx(args.init_onnx, model))
    else:  # input normalisation from data
        with torch.no_grad():
            from model import stft
            x = torch.from_numpy(np.stack([mixing.example(rng, sp, amb, length)[0] for _ in range(32)]))
            lp = torch.log(stft(x).abs() ** 2 + 1e-10)
            model.mean.copy_(lp.mean((0, 2)).view(1, -1, 1))
            model.std.copy_(lp.std((0, 2)).clamp_min(1.0).view(1, -1, 1))
    log = open(os.path.join(mixing.DATA, "train_log.jsonl"), "a")
    budget = args.minutes * 60
    t0 = time.time() - spent
    last_save, losses = time.time(), []
    while True:
        elapsed = time.time() - t0
        if elapsed > budget:
            break
        lr = 5e-5 + 0.5 * (args.lr - 5e-5) * (1 + math.cos(math.pi * min(1.0, elapsed / budget)))
        for g in opt.param_groups:
            g["lr"] = lr
        ex = [mixing.example(rng, sp, amb, length) for _ in range(args.batch - n_codec - args.silent)]
        ex += [mixing.example_without_speech(rng, amb, length) for _ in range(args.silent)]
        m = [e[0] for e in ex]; s = [e[1] for e in ex]
        for i in rng.integers(0, len(cmix), n_codec) if n_codec else []:
            o = int(rng.integers(0, cmix.shape[1] - length + 1))
            m.append(cmix[i, o:o + length] / 32768.0); s.append(csp[i, o:o + length] / 32768.0)
        m = torch.from_numpy(np.stack(m).astype(np.float32)); s = torch.from_numpy(np.stack(s).astype(np.float32))
        est = separate(model, m)
        loss = speech_loss(est, m, s)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        losses.append(loss.item())
        step += 1
        if step % 50 == 0 or time.time() - last_save > 240 or time.time() - t0 > budget:
            with torch.no_grad():
                model.eval()
                e = separate(model, vm)
                model.train()
                imp = (si_sdr(e, vs) - si_sdr(vm, vs)).mean().item()
            rec = {"step": step, "min": round((time.time() - t0) / 60, 2), "loss": round(float(np.mean(losses)), 3),
                   "lr": round(lr, 6), "val_sisdri_0db": round(imp, 2)}
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n"); log.flush()
            losses = []
            if time.time() - last_save > 180:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                            "spent": time.time() - t0}, os.path.join(ckdir, "last.pt"))
                last_save = time.time()
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "spent": time.time() - t0},
               os.path.join(ckdir, "last.pt"))


def state_from_onnx(path, model):
    """The torch state dict of an ONNX export of MaskNet: initializers keep their torch names, except the PReLU
    slopes, which the exporter renames `onnx::PRelu_<n>` in graph order (two per block)."""
    import onnx
    from onnx import numpy_helper
    init = {i.name: numpy_helper.to_array(i) for i in onnx.load(path).graph.initializer}
    prelus = sorted((k for k in init if k.startswith("onnx::PRelu_")), key=lambda k: int(k.rsplit("_", 1)[1]))
    state = {}
    for name, ref in model.state_dict().items():
        if name in init:
            value = init[name]
        else:  # blocks.<b>.net.<2|4>.weight
            b, layer = int(name.split(".")[1]), int(name.split(".")[3])
            value = init[prelus[2 * b + (0 if layer == 2 else 1)]]
        state[name] = torch.from_numpy(value.copy()).reshape(ref.shape)
    return state


if __name__ == "__main__":
    main()
