"""Trains viseme v3 candidates on a GPU within a wall-clock budget, from the pack (pack.py), then scores them on the
held-out real speakers next to the shipped model and exports each to ONNX for the TypeScript analyzer (input
`features` [1, T, 40], output `posteriors` [1, T, 9], as models/lipsync/viseme.onnx).

    # GPU (from the repository root; see README.md "GPU run (prepared)")
    python3 training/lipsync/train_gpu.py --minutes 8 --copy-to "$OUT"
    # the same end to end on the CPU, tiny (a few steps; checks the wiring, not the model)
    /usr/bin/python3 training/lipsync/train_gpu.py --device cpu --minutes 0.5 --tiny

`--minutes` is the budget of the whole script: training stops `--reserve-s` before it. Candidates (`--arch`,
model_v3.py; `v2ft` is the shipped VisemeNet fine-tuned from models/lipsync/viseme.onnx) train side by side on the
same batches, each with its own AdamW (peak `--lr`, 3 % linear warm-up, cosine to 3 % of the peak over the training
time, gradient clipping 1). Batches: `--batch` random crops of `--frames` frames, a `--real-share` of them from the
real training speakers, the rest synthetic; on the device: gain jitter ±1.5 (log domain, ±6.5 dB), a random smooth
EQ curve (tilt and two cosines over the bands, ±0.6 nats at most, half the crops), frequency masking (half the
crops, 1–4 bands set to the band mean), as train.py's cross-entropy (class weights inverse frequency^0.3, label
smoothing 0.05). Every `--val-every` seconds the models are scored on the pack's validation sets (real_val: the
training speakers' utterances left out of training; syn_val: synthetic held-out voices and languages), one
utterance at a time, and the state with the best real_val 9-class + real_val rest-vs-speech + 0.5 × syn_val 9-class
is kept. The held-out real speakers (real_test) are never used to pick anything: they are scored once, at the end.

Writes to `--out` (default training/lipsync/checkpoints/gpu/): train_log.jsonl, <arch>.pt (the selected state),
viseme-<arch>.onnx and golden-<arch>.json (export.py's golden format, for test/lipsync), and eval.json (per model and
for the shipped model: 9-class and rest-vs-speech accuracy, macro recall, per-class recall and precision, confusion
matrix, onset timing, per speaker, accuracy away from label changes; the synthetic validation set; the run's log; the
ONNX checks). `--copy-to DIR` copies up to `--copy-max` (8) of these files there.
"""
import argparse
import copy
import json
import math
import os
import sys
import time

import numpy as np
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))
import gpu_run  # noqa: E402
import features as feat  # noqa: E402
import metrics  # noqa: E402
import model_v3  # noqa: E402
import packio  # noqa: E402
from visemes import VISEMES  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SHIPPED = os.path.join(ROOT, "models", "lipsync", "viseme.onnx")
CHUNK, LEFT, RIGHT = 1000, 100, 50  # the engine's chunking (src/inference/lipsync/viseme-model.ts)


# --- data

class Stream:
    """One pack set on the device: features [frames, 40] float32, labels [frames] int64, utterance offsets."""

    def __init__(self, pack, name, device):
        self.x = torch.from_numpy(packio.features(pack, name)).to(device)
        self.y = torch.from_numpy(pack[f"{name}_labels"].astype(np.int64)).to(device)
        self.lengths = pack[f"{name}_lengths"].astype(np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)])
        self.group = pack[f"{name}_group"].astype(np.int64)
        self.groups = [str(g) for g in pack[f"{name}_groups"]]

    def crops(self, n, frames, gen):
        """n random crops of `frames` frames from the whole stream (crossing utterance ends, as train.py's)."""
        hi = max(1, len(self.y) - frames)
        start = torch.randint(0, hi, (n, 1), generator=gen, device=self.y.device)
        idx = start + torch.arange(frames, device=self.y.device)[None]
        idx = idx.clamp_max(len(self.y) - 1)
        return self.x[idx], self.y[idx]


def augment(x, mean, gen):
    """Gain jitter, a smooth random EQ curve and frequency masking, on the device (see the module doc)."""
    b, _, bands = x.shape
    dev = x.device
    u = lambda *s: torch.rand(*s, generator=gen, device=dev)  # noqa: E731
    x = x + (u(b, 1, 1) * 3.0 - 1.5)
    k = torch.linspace(-1.0, 1.0, bands, device=dev)
    eq = (u(b, 1) * 2 - 1) * 0.3 * k[None] \
        + (u(b, 1) * 2 - 1) * 0.15 * torch.cos(math.pi * (k[None] + 1) * (1 + u(b, 1) * 2)) \
        + (u(b, 1) * 2 - 1) * 0.15 * torch.cos(math.pi * (k[None] + 1) * (3 + u(b, 1) * 3))
    x = x + (eq * (u(b, 1) < 0.5).float())[:, None, :]
    f0 = (u(b) * (bands - 4)).long()
    width = 1 + (u(b) * 4).long()
    band = torch.arange(bands, device=dev)[None]
    mask = (band >= f0[:, None]) & (band < (f0 + width)[:, None]) & (u(b, 1) < 0.5)
    return torch.where(mask[:, None, :], mean[None, None, :].expand_as(x), x)


# --- models

def make(arch, tiny, device, init_onnx):
    if arch == "v2ft":
        from onnx_import import load_onnx
        net = load_onnx(init_onnx).train()
        cfg = {"arch": "v2ft", "init": os.path.relpath(init_onnx, ROOT)}
    else:
        cfg = dict((model_v3.TINY if tiny else model_v3.DEFAULTS)[arch])
        net = model_v3.build(cfg)
    return cfg, net.to(device)


@torch.no_grad()
def predict(net, stream, max_utts=None):
    """Argmax per frame, one utterance at a time (as evaluate.py), on the stream's device. cuDNN's autotuning is off
    meanwhile: every utterance length would be a new shape to tune."""
    net.eval()
    tuning, torch.backends.cudnn.benchmark = torch.backends.cudnn.benchmark, False
    n = len(stream.lengths) if max_utts is None else min(max_utts, len(stream.lengths))
    out = []
    for u in range(n):
        a, b = stream.offsets[u], stream.offsets[u + 1]
        out.append(net(stream.x[a:b][None])[0].argmax(-1))
    torch.backends.cudnn.benchmark = tuning
    net.train()
    return torch.cat(out).cpu().numpy(), stream.y[:stream.offsets[n]].cpu().numpy()


def quick(pred, labels):
    return {"acc": round(float((pred == labels).mean()), 4),
            "rest": round(float(((pred == 0) == (labels == 0)).mean()), 4)}


def full_report(net, stream):
    """metrics.report + per speaker + accuracy away from label changes (error_analysis.py's distances)."""
    from error_analysis import distance_to_change
    pred, labels = predict(net, stream)
    rep = metrics.report(pred, labels, stream.lengths)
    per = {}
    frame_group = np.repeat(stream.group, stream.lengths)
    for g, name in enumerate(stream.groups):
        sel = frame_group == g
        if sel.any():
            per[name] = quick(pred[sel], labels[sel])
    rep["per_speaker"] = per
    dist = distance_to_change(labels, stream.lengths)
    rest_dist = distance_to_change(labels == 0, stream.lengths)
    rep["away_from_changes"] = {
        f">={ms}ms": {"share": round(float((dist >= ms).mean()), 3),
                      "acc": round(float((pred == labels)[dist >= ms].mean()), 4),
                      "rest": round(float(((pred == 0) == (labels == 0))[rest_dist >= ms].mean()), 4)}
        for ms in (20, 30, 50)}
    rep["frames"] = int(len(labels))
    return rep


def summary_table(rep):
    """Short text: the per-class table and the confusion matrix (% of each true row), as README.md shows them."""
    lines = ["class recall precision share"]
    for v in VISEMES:
        c = rep["per_class"][v]
        lines.append(f"{v} {100 * c['recall']:.1f} {100 * c['precision']:.1f} {100 * c['share']:.1f}")
    m = np.array(rep["confusion_rows_true_cols_pred"]["matrix"], np.float64)
    m = 100 * m / np.maximum(m.sum(1, keepdims=True), 1)
    lines.append("confusion (rows true, % of the row): " + " ".join(VISEMES))
    lines += [f"{v} " + " ".join(f"{x:4.0f}" for x in row) for v, row in zip(VISEMES, m)]
    return lines


# --- export

def export_onnx(net, path, lookahead):
    """ONNX opset 17, names and dynamic axes as export.py (the TorchScript exporter where torch has both)."""
    import onnx
    from model import Exported
    model = Exported(copy.deepcopy(net).cpu().float().eval()).eval()
    dummy = torch.zeros(1, 50, 40)
    kw = dict(input_names=["features"], output_names=["posteriors"], opset_version=17, do_constant_folding=True,
              dynamic_axes={"features": {0: "batch", 1: "time"}, "posteriors": {0: "batch", 1: "time"}})
    errors, how = [], None
    for how in ("torchscript", "default"):
        try:
            if how == "torchscript":
                torch.onnx.export(model, dummy, path, dynamo=False, **kw)
            else:
                torch.onnx.export(model, dummy, path, **kw)
            break
        except TypeError as e:  # torch < 2.5 has no `dynamo` argument: its default exporter is TorchScript
            errors.append(f"{how}: {e}"[:300])
    else:
        raise RuntimeError("ONNX export failed: " + " | ".join(errors))
    m = onnx.load(path)
    onnx.checker.check_model(m)
    for k, v in {"classes": "X A B C D E F G H", "features": "log-mel 40 x 100 fps, see training/lipsync/FEATURES.md",
                 "lookahead_frames": str(lookahead)}.items():
        p = m.metadata_props.add()
        p.key, p.value = k, v
    onnx.save(m, path)
    return how, errors


def golden(net, path):
    """export.py's golden.json: its golden signal → features.py → posteriors of this model (PyTorch)."""
    from export import GOLDEN_SAMPLES, golden_signal
    feats = feat.logmel(golden_signal())
    model = copy.deepcopy(net).cpu().float().eval()
    with torch.no_grad():
        post = torch.softmax(model(torch.from_numpy(feats)[None]), -1)[0].numpy()
    with open(path, "w") as f:
        json.dump({"description": "golden vector: signal from golden_signal() in training/lipsync/export.py -> "
                                  "features (features.py) -> posteriors (PyTorch, before ONNX export)",
                   "samples": GOLDEN_SAMPLES,
                   "features": [[round(float(v), 5) for v in row] for row in feats],
                   "posteriors": [[round(float(v), 6) for v in row] for row in post]}, f, separators=(",", ":"))
    return feats, post


def ort_check(path, net, x, seconds):
    """With Python's onnxruntime, if installed: posteriors vs torch, the engine's chunking (1000 frames, 100 left,
    50 right) vs one run, and speed on the engine's 1150-frame runs on one thread (frames per CPU second ÷ 100 =
    × real time of the model alone). None without onnxruntime (Debian has no package; use ort_check.mjs)."""
    sess = gpu_run.ort_session(path)
    if sess is None:
        return None
    import onnxruntime as ort
    run = lambda f: sess.run(["posteriors"], {"features": f[None]})[0][0]  # noqa: E731
    whole = run(x)
    with torch.no_grad():
        ref = torch.softmax(copy.deepcopy(net).cpu().float().eval()(torch.from_numpy(x)[None]), -1)[0].numpy()
    chunked = np.zeros_like(whole)
    for s in range(0, len(x), CHUNK):
        e = min(len(x), s + CHUNK)
        lo, hi = max(0, s - LEFT), min(len(x), e + RIGHT)
        chunked[s:e] = run(x[lo:hi])[s - lo:e - lo]
    part = x[:CHUNK + LEFT + RIGHT]
    rate = gpu_run.runs_per_cpu_second(lambda: run(part), seconds)
    return {"onnxruntime": ort.__version__, "max_abs_vs_torch": float(np.abs(whole - ref).max()),
            "chunked_vs_whole_mean_abs": float(np.abs(chunked - whole).mean()),
            "chunked_vs_whole_argmax_agree": float((chunked.argmax(-1) == whole.argmax(-1)).mean()),
            "real_time_factor_1_thread_cpu_time": round(rate * CHUNK / 100, 1)}


def export_all(name, net, out, x, seconds):
    path = os.path.join(out, f"viseme-{name}.onnx")
    look = getattr(net, "lookahead", 6)
    how, errs = export_onnx(net, path, look)
    golden(net, os.path.join(out, f"golden-{name}.json"))
    return {"file": os.path.basename(path), "exporter": how, "kib": round(os.path.getsize(path) / 1024, 1),
            "fallback_errors": errs, "check": ort_check(path, net, x, seconds)}


def print_report(path):
    """The held-out tables of a run's eval.json (shipped model first), as README.md shows them."""
    with open(path) as f:
        r = json.load(f)
    runs = ([("shipped", r["shipped"])] if "real_test" in r.get("shipped", {}) else []) + list(r["models"].items())
    for name, m in runs:
        t = m["real_test"]
        print(f"## {name}: 9-class {100 * t['frame_accuracy']:.2f} %, rest-vs-speech "
              f"{100 * t['rest_vs_speech_accuracy']:.2f} %, macro recall {100 * t['macro_recall']:.1f} %; "
              + ", ".join(f"{k} {100 * v['acc']:.1f} / {100 * v['rest']:.1f}" for k, v in t["per_speaker"].items()))
        print("\n".join(summary_table(t)))


def export_only(pt, out):
    ck = torch.load(pt, map_location="cpu")
    if ck["config"].get("arch") == "v2ft":
        from model import VisemeNet
        net = VisemeNet()
    else:
        net = model_v3.build(ck["config"])
    net.load_state_dict(ck["model"])
    name = os.path.splitext(os.path.basename(pt))[0]
    os.makedirs(out, exist_ok=True)
    print(json.dumps(export_all(name, net.eval(), out, np.zeros((1200, 40), np.float32) - 8, 2.0)), flush=True)


# --- main

def main():
    ap = argparse.ArgumentParser(description="train viseme v3 on a GPU within a wall-clock budget")
    gpu_run.add_run_args(ap, HERE, torch.cuda.is_available(), "(default 60 on a GPU, 15 on the CPU)")
    ap.add_argument("--arch", default="tcn,tcn_s,v2ft", help="comma-separated: tcn, tcn_s (model_v3.py), v2ft")
    ap.add_argument("--init-onnx", default=SHIPPED, help="weights for arch v2ft")
    ap.add_argument("--baseline-onnx", default=SHIPPED, help="the shipped model, scored the same way ('' to skip)")
    ap.add_argument("--batch", type=int, help="crops per step (default 128; 8 with --tiny)")
    ap.add_argument("--frames", type=int, help="frames per crop (default 400 = 4 s; 100 with --tiny)")
    ap.add_argument("--real-share", type=float, default=0.5, help="share of the crops from the real training "
                    "speakers (their aligner's label timing is the held-out set's; see README.md)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=1e-2)
    ap.add_argument("--val-every", type=float, help="seconds between validations (default 30; 5 with --tiny)")
    ap.add_argument("--export", metavar="PT", help="only export a selected state (<arch>.pt) to --out, then stop")
    ap.add_argument("--report", metavar="EVAL_JSON", help="only print the held-out tables of a run's eval.json")
    args = ap.parse_args()
    if args.report:
        return print_report(args.report)
    if args.export:
        return export_only(args.export, args.out)
    t_start = time.time()
    device = torch.device(args.device)
    cuda = gpu_run.setup_torch(torch, device, args.threads, args.seed)
    batch = args.batch or (8 if args.tiny else 128)
    frames = args.frames or (100 if args.tiny else 400)
    val_every = args.val_every or (5.0 if args.tiny else 30.0)
    reserve = args.reserve_s if args.reserve_s is not None else (60.0 if cuda else 15.0)
    os.makedirs(args.out, exist_ok=True)
    run_log = gpu_run.RunLog(os.path.join(args.out, "train_log.jsonl"), t_start)
    note = run_log.note

    pack = packio.load(args.pack)
    sets = {s: Stream(pack, s, device) for s in packio.SETS}
    dev_name = torch.cuda.get_device_name(device) if cuda else "cpu"
    note({"event": "start", "device": dev_name, "torch": torch.__version__, "pack": os.path.relpath(args.pack, ROOT),
          "pack_mib": round(os.path.getsize(args.pack) / 2 ** 20, 1), "arch": args.arch, "batch": batch,
          "frames": frames, "lr": args.lr, "real_share": args.real_share, "minutes": args.minutes,
          "reserve_s": reserve, "tiny": args.tiny,
          "frames_per_set": {s: int(len(v.y)) for s, v in sets.items()}})
    syn, real = sets["syn_train"], sets["real_train"]
    both = torch.cat([syn.x, real.x])
    mean, std = both.mean(0), both.std(0) + 1e-3
    del both
    counts = np.bincount(syn.y.cpu().numpy(), minlength=9) / max(1, len(syn.y)) * (1 - args.real_share) \
        + np.bincount(real.y.cpu().numpy(), minlength=9) / max(1, len(real.y)) * args.real_share
    weights = torch.tensor((1.0 / np.maximum(counts, 1e-6) / 9) ** 0.3, dtype=torch.float32, device=device)
    loss_fn = nn.CrossEntropyLoss(weight=weights, label_smoothing=0.05)
    gen = torch.Generator(device=device)
    gen.manual_seed(args.seed + 1)

    models = []
    for arch in [a.strip() for a in args.arch.split(",") if a.strip()]:
        cfg, net = make(arch, args.tiny, device, args.init_onnx)
        if arch != "v2ft":
            net.set_normalisation(mean, std)
        opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)
        m = {"name": arch, "config": cfg, "net": net, "opt": opt, "step": 0, "losses": [], "best": None,
             "best_val": -1e9, "params": sum(p.numel() for p in net.parameters()),
             "macs": model_v3.macs_per_frame(net), "lr_scale": 0.25 if arch == "v2ft" else 1.0}
        models.append(m)
        note({"event": "model", "name": arch, "config": cfg, "params": m["params"], "macs_per_frame": m["macs"],
              "lookahead_frames": getattr(net, "lookahead", 6)})

    def validate(m):
        rp, rl = predict(m["net"], sets["real_val"])
        sp, sl = predict(m["net"], sets["syn_val"])
        r, s = quick(rp, rl), quick(sp, sl)
        return r["acc"] + r["rest"] + 0.5 * s["acc"], {"real_val": r, "syn_val": s}

    # --- training
    train_end = t_start + args.minutes * 60 - reserve
    t_train0 = time.time()
    budget = max(1e-3, train_end - t_train0)
    last_val = time.time()
    steps = 0
    note({"event": "training", "seconds_for_training": round(train_end - t_train0, 1)})
    while time.time() < train_end and not run_log.stopping:
        frac = min(1.0, (time.time() - t_train0) / budget)
        if frac < 0.03:
            sched = 0.1 + 0.9 * frac / 0.03
        else:
            sched = 0.03 + 0.97 * 0.5 * (1 + math.cos(math.pi * (frac - 0.03) / 0.97))
        n_real = int(round(batch * args.real_share))
        xr, yr = real.crops(n_real, frames, gen)
        xs, ys = syn.crops(batch - n_real, frames, gen)
        x = augment(torch.cat([xs, xr]), mean, gen)
        y = torch.cat([ys, yr])
        for m in models:
            for g in m["opt"].param_groups:
                g["lr"] = args.lr * m["lr_scale"] * sched
            loss = loss_fn(m["net"](x).reshape(-1, 9), y.reshape(-1))
            m["opt"].zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(m["net"].parameters(), 1.0)
            m["opt"].step()
            m["losses"].append(loss.detach())
            m["step"] += 1
        steps += 1
        now = time.time()
        if now - last_val > val_every or now >= train_end:
            rec = {"step": steps, "min": round((now - t_train0) / 60, 2), "lr_scale": round(sched, 4),
                   "steps_per_s": round(steps / (now - t_train0), 2)}
            for m in models:
                score, detail = validate(m)
                gpu_run.keep_best(m, score)
                ls = torch.stack(m["losses"]).mean().item() if m["losses"] else float("nan")
                m["losses"] = []
                rec[m["name"]] = {"loss": round(ls, 4), **detail, "score": round(score, 4)}
            note(rec)
            last_val = time.time()
    train_s = time.time() - t_train0
    note({"event": "trained", "steps": steps, "train_s": round(train_s, 1),
          "steps_per_s": round(steps / max(train_s, 1e-9), 2), "frames_seen": steps * batch * frames})

    # --- held-out evaluation (the real held-out speakers; never used above)
    results = {"run": {"device": dev_name, "torch": torch.__version__, "arch": args.arch, "batch": batch,
                       "frames": frames, "lr": args.lr, "real_share": args.real_share, "minutes_budget": args.minutes,
                       "steps": steps, "train_minutes": round(train_s / 60, 2), "tiny": args.tiny,
                       "pack": pack["meta"]}, "models": {}}
    t_eval = time.time()
    x_check = packio.features(pack, "real_test")[:3000]
    if args.baseline_onnx and os.path.exists(args.baseline_onnx):
        try:
            from onnx_import import load_onnx
            shipped = load_onnx(args.baseline_onnx).to(device).eval()
            results["shipped"] = {"real_test": full_report(shipped, sets["real_test"]),
                                  "syn_val": quick(*predict(shipped, sets["syn_val"])),
                                  "real_val": quick(*predict(shipped, sets["real_val"])),
                                  "macs_per_frame": model_v3.macs_per_frame(shipped),
                                  "ort": ort_check(args.baseline_onnx, shipped, x_check, 1.0 if args.tiny else 4.0)}
        except Exception as e:  # noqa: BLE001  (no onnx package: report, go on)
            results["shipped"] = {"error": f"{type(e).__name__}: {e}"}
    for m in models:
        net = gpu_run.selected(m)
        results["models"][m["name"]] = {
            "params": m["params"], "macs_per_frame": m["macs"], "config": m["config"], "steps": m["step"],
            "best_val_step": m.get("best_step"), "best_val_score": round(m["best_val"], 4),
            "real_test": full_report(net, sets["real_test"]),
            "syn_val": quick(*predict(net, sets["syn_val"])), "real_val": quick(*predict(net, sets["real_val"]))}
        torch.save({"model": net.state_dict(), "config": m["config"], "step": m["step"]},
                   os.path.join(args.out, f"{m['name']}.pt"))
    results["eval_seconds"] = round(time.time() - t_eval, 1)

    # --- export
    t_exp = time.time()
    for m in models:
        try:
            results["models"][m["name"]]["onnx"] = export_all(m["name"], m["net"], args.out, x_check,
                                                              1.0 if args.tiny else 4.0)
        except Exception as e:  # noqa: BLE001  (the .pt stays; --export redoes it on the CPU)
            results["models"][m["name"]]["onnx"] = {"error": f"{type(e).__name__}: {e}"}
    results["export_seconds"] = round(time.time() - t_exp, 1)
    results["wall_minutes"] = round((time.time() - t_start) / 60, 2)
    results["log"] = run_log.records()
    with open(os.path.join(args.out, "eval.json"), "w") as fh:
        json.dump(results, fh, indent=1)

    def brief(r):
        t = r["real_test"]
        return {"acc": round(t["frame_accuracy"], 4), "rest": round(t["rest_vs_speech_accuracy"], 4),
                "macro_recall": round(t["macro_recall"], 4), "per_speaker": t["per_speaker"]}
    if "real_test" in results.get("shipped", {}):
        note({"event": "held-out real speakers", "model": "shipped", **brief(results["shipped"])})
        print("\n".join(summary_table(results["shipped"]["real_test"])), flush=True)
    for name, r in results["models"].items():
        note({"event": "held-out real speakers", "model": name, **brief(r), "syn_val": r["syn_val"],
              "onnx": {k: v for k, v in r["onnx"].items() if k != "fallback_errors"}})
        print("\n".join(summary_table(r["real_test"])), flush=True)
    note({"event": "done", "wall_minutes": results["wall_minutes"], "steps": steps})
    if args.copy_to:
        gpu_run.copy_results(args.out, "viseme", [m["name"] for m in models], args.copy_to, args.copy_max)


if __name__ == "__main__":
    main()
