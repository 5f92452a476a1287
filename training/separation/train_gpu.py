"""Trains separation v4 candidates on a GPU within a wall-clock budget, from a pack (pack.py), mixing on the device
(gpu_mix.py), then evaluates them on the pack's fixed held-out mixtures next to the shipped v3 model and the oracle
mask, and exports each to ONNX for the TypeScript engine (input `mag` [1, T, 257], output `mask` [1, T, 257]).

    # GPU (from the repository root; see README "GPU run (prepared)")
    python3 training/separation/train_gpu.py --minutes 8 --copy-to "$OUT"
    # the same end to end on the CPU, tiny (a few steps; checks the wiring, not the model)
    /usr/bin/python3 training/separation/train_gpu.py --device cpu --minutes 0.5 --tiny

`--minutes` is the budget of the whole script: training stops `--reserve-s` before it (evaluation and export take the
rest). Several architectures (`--arch tcn,band`, model_v4.py; default tcn alone) train side by side on the same batches, each with its
own Adam (peak lr `--lr`, linear warm-up over the first 3 % of the training time, cosine to 3 % of the peak by its end,
gradient clipping 5). The loss is model.speech_loss (−SI-SDR of the speech, −0.5·SI-SDR of the ambience, and the
speech stem's energy for examples without speech). Every `--val-every` seconds the models are scored on a fixed batch
mixed from the pack's *test* pools (held out, augmented like training) and the best state of each is kept; the final
held-out evaluation uses that state. `arch` v3ft is the shipped architecture initialised from the shipped weights
(`--init-onnx`).

Writes to `--out` (default training/separation/checkpoints/gpu/): train_log.jsonl, last-<arch>.pt every
`--ckpt-minutes` (model, optimiser, step, time; `--resume` continues from them), <arch>.pt (the selected state),
separator-<arch>.onnx and golden-<arch>.json (as export.py writes golden.json), and eval.json (per model: speech
SI-SDRi mean / median / 10th percentile / share below 0 dB overall, per background, speech kind, SNR, condition,
reverberant and coded speech; the speech stem's energy on songs, singing and music without speech; the same for the
shipped model and the oracle ideal ratio mask; the run's log; the ONNX checks). `--copy-to DIR` copies up to 8 of
these files there (the device tool brings back at most 8).
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))
import gpu_run  # noqa: E402
import gpu_mix  # noqa: E402
import model_v4  # noqa: E402
import packio  # noqa: E402
from model import BINS, HOP, NFFT, si_sdr, speech_loss  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
_windows = {}


def window(device):
    key = str(device)
    if key not in _windows:
        _windows[key] = torch.hann_window(NFFT, periodic=True, device=device).sqrt()
    return _windows[key]


def stft(x):  # as model.stft, on x's device
    return torch.stft(x, NFFT, HOP, window=window(x.device), center=True, pad_mode="constant", return_complex=True)


def istft(X, length):
    return torch.istft(X, NFFT, HOP, window=window(X.device), center=True, length=length)


def separate(model, mix, amp=None):
    X = stft(mix)
    mag = X.abs().transpose(1, 2)
    if amp:
        with torch.autocast("cuda", dtype=amp):
            mask = model(mag)
    else:
        mask = model(mag)
    return istft(X * mask.float().transpose(1, 2), mix.shape[-1])


# --- evaluation on the pack's fixed held-out mixtures

class HeldOut:
    def __init__(self, pack, device):
        lut = torch.from_numpy(packio.mulaw_table())
        S = lut[torch.from_numpy(pack["eval_speech"].astype(np.int64))]
        A = lut[torch.from_numpy(pack["eval_amb"].astype(np.int64))]
        C = lut[torch.from_numpy(pack["eval_coded"].astype(np.int64))] if pack["eval_coded"].size else None
        items, gains = pack["eval_items"], pack["eval_gain"]
        self.labels = [str(x) for x in pack["eval_label"]]
        refs, mixes = [], []
        for (srow, arow, crow), (gs, ga) in zip(items, gains):
            ref = gs * S[srow] if srow >= 0 else torch.zeros(S.shape[1])
            if crow >= 0:
                mix = C[crow] * float(pack["eval_coded_scale"][crow])
            else:
                mix = ref + ga * A[arow]
            refs.append(ref)
            mixes.append(mix)
        self.ref = torch.stack(refs).float().to(device)
        self.mix = torch.stack(mixes).float().to(device)
        self.has = (self.ref.pow(2).sum(-1) > 0)
        self.coded = torch.tensor(items[:, 2] >= 0, device=device)

    @torch.no_grad()
    def scores(self, fn, batch=32):
        """Per item: speech SI-SDRi and ambience SI-SDRi (items with speech), or the speech stem's energy re the
        input in dB (items without). `fn(mix, rows) -> speech estimate` (rows: the items' slice)."""
        out = []
        for i in range(0, len(self.mix), batch):
            rows = slice(i, i + batch)
            m, r = self.mix[rows], self.ref[rows]
            e = fn(m, rows)
            sp = si_sdr(e, r) - si_sdr(m, r)
            am = si_sdr(m - e, m - r) - si_sdr(m, m - r)
            en = 10 * torch.log10(e.pow(2).sum(-1) / (m.pow(2).sum(-1) + 1e-12) + 1e-12)
            out += list(zip(sp.tolist(), am.tolist(), en.tolist()))
        return out

    def oracle(self, m, rows):
        """Ideal ratio mask on the model's STFT (evaluate.py's oracle), from the items' references."""
        X, Sx = stft(m), stft(self.ref[rows])
        irm = Sx.abs() / (Sx.abs() + (X - Sx).abs() + 1e-8)
        return istft(X * irm, m.shape[-1])

    def summary(self, per_item):
        """Aggregates: all (the main grid: kinds × backgrounds × SNRs; all:snr<=5dB without +10 dB, as the previous
        held-out set), per background / kind / SNR / condition, reverberant speech, each codec; and the speech stem
        without speech."""
        groups = {}

        def add(g, v):
            groups.setdefault(g, []).append(v)

        for label, (sp, am, en) in zip(self.labels, per_item):
            if label.startswith("nospeech/"):
                add(label, en)
                continue
            base, _, mod = label.partition("+")
            cond, kind = base.split("/")
            bg, snr = cond.split("@")
            if mod.startswith("codec:"):
                add("codec:" + mod[6:], sp)
                add("codec:all", sp)
                continue
            if mod == "reverb":
                add("reverb:all", sp)
                add(f"reverb:snr={snr}", sp)
                continue
            add("all", sp)
            if snr != "10dB":  # the SNRs of the previous held-out set (evaluate.py: −5, 0, 5 dB)
                add("all:snr<=5dB", sp)
            add("ambience:all", am)
            add(f"background={bg}", sp)
            add(f"speech={kind}", sp)
            add(f"snr={snr}", sp)
            add(f"condition={cond}", sp)
            add(f"condition={cond}/{kind}", sp)

        def stats(v, nospeech=False):
            a = np.array(v, np.float64)
            if nospeech:
                return {"n": len(a), "mean_db": round(float(a.mean()), 2), "max_db": round(float(a.max()), 2),
                        "share_at_or_below_-20db": round(float(np.mean(a <= -20)), 2)}
            return {"n": len(a), "mean": round(float(a.mean()), 2), "median": round(float(np.median(a)), 2),
                    "p10": round(float(np.percentile(a, 10)), 2), "min": round(float(a.min()), 2),
                    "share_below_0": round(float(np.mean(a < 0)), 3)}

        return {g: stats(v, g.startswith("nospeech/")) for g, v in sorted(groups.items())}

    def evaluate(self, model, amp=None):
        model.eval()
        return self.summary(self.scores(lambda m, _rows: separate(model, m, amp)))

    def evaluate_oracle(self):
        return self.summary(self.scores(self.oracle))


# --- models

def make(arch, tiny, device, init_onnx=None):
    name = arch
    if arch == "v3ft":
        cfg = dict(model_v4.DEFAULTS["v3"])
    else:
        cfg = dict((model_v4.TINY if tiny else model_v4.DEFAULTS)[arch])
    net = model_v4.build(cfg)
    if arch == "v3ft":
        from train import state_from_onnx
        net.load_state_dict(state_from_onnx(init_onnx, net))
    return name, cfg, net.to(device)


@torch.no_grad()
def normalisation(mixer, batches, b, seconds):
    lp = []
    for _ in range(batches):
        X = stft(mixer.batch(b, seconds)["mix"])
        lp.append(torch.log(X.abs() ** 2 + 1e-10).transpose(0, 1).reshape(BINS, -1))
    lp = torch.cat(lp, 1)
    return lp.mean(1), lp.std(1).clamp_min(1.0)


# --- export

def export_onnx(model, path):
    """ONNX opset 17 with a dynamic frame axis (the TorchScript exporter where torch has both; else torch.export)."""
    net = copy.deepcopy(model).cpu().float().eval()
    dummy = torch.rand(1, 200, BINS)
    kw = dict(input_names=["mag"], output_names=["mask"], opset_version=17)
    axes = {"mag": {1: "frames"}, "mask": {1: "frames"}}
    errors = []
    for how in ("torchscript", "default", "dynamo"):
        try:
            if how == "torchscript":
                torch.onnx.export(net, dummy, path, dynamo=False, dynamic_axes=axes, **kw)
            elif how == "default":
                torch.onnx.export(net, dummy, path, dynamic_axes=axes, **kw)
            else:
                frames = torch.export.Dim("frames", min=1, max=1 << 20)
                torch.onnx.export(net, (dummy,), path, dynamo=True, dynamic_shapes={"mag": {1: frames}}, **kw)
            return how, errors
        except Exception as e:  # noqa: BLE001  (try the next exporter, report why)
            errors.append(f"{how}: {type(e).__name__}: {str(e)[:300]}")
    raise RuntimeError("ONNX export failed: " + " | ".join(errors))


def golden(model, path):
    """export.py's golden vector: 12 frames of a deterministic pattern and the model's masks."""
    t = np.arange(12)[:, None]
    k = np.arange(BINS)[None, :]
    mag = (0.01 + 0.5 * np.abs(np.sin(0.37 * t + 0.11 * k)) * np.exp(-k / 120.0)).astype(np.float32)
    net = copy.deepcopy(model).cpu().float().eval()
    with torch.no_grad():
        mask = net(torch.from_numpy(mag)[None])[0].numpy()
    with open(path, "w") as fh:
        json.dump({"frames": 12, "bins": BINS, "mag": [round(float(v), 7) for v in mag.ravel()],
                   "mask": [round(float(v), 6) for v in mask.ravel()]}, fh)
    return mag, mask


def ort_check(path, model, seconds=5.0):
    """With Python's onnxruntime, if installed: masks vs torch, chunked (64 frames of context) vs whole, speed on the
    engine's 628-frame chunks on one thread. None without onnxruntime (Debian has no package; use ort_check.mjs)."""
    sess = gpu_run.ort_session(path)
    if sess is None:
        return None
    import onnxruntime as ort
    rng = np.random.default_rng(0)
    x = (rng.random((1, 700, BINS)) * np.exp(-np.arange(BINS) / 80)).astype(np.float32)
    whole = sess.run(["mask"], {"mag": x})[0]
    net = copy.deepcopy(model).cpu().float().eval()
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    err_chunk = 0.0
    for a in range(0, 700, 47):
        b = min(700, a + 47)
        lo, hi = max(0, a - 64), min(700, b + 64)
        m = sess.run(["mask"], {"mag": x[:, lo:hi]})[0]
        err_chunk = max(err_chunk, float(np.abs(m[0, a - lo:b - lo] - whole[0, a:b]).max()))
    small = [sess.run(["mask"], {"mag": x[:, :t]})[0].shape == (1, t, BINS) for t in (1, 5)]
    chunk = x[:, :628]
    rate = gpu_run.runs_per_cpu_second(lambda: sess.run(["mask"], {"mag": chunk}), seconds)
    return {"onnxruntime": ort.__version__, "max_abs_vs_torch": float(np.abs(whole - ref).max()),
            "chunked_vs_whole_max_abs": err_chunk, "shapes_ok_for_1_and_5_frames": all(small),
            "mask_min": float(whole.min()), "mask_max": float(whole.max()),
            "real_time_factor_1_thread_cpu_time": round(rate * 500 * HOP / 16000, 1)}


def export_only(pt, out):
    ck = torch.load(pt, map_location="cpu")
    net = model_v4.build(dict(ck["config"]))
    net.load_state_dict(ck["model"])
    net.eval()
    name = os.path.splitext(os.path.basename(pt))[0]
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"separator-{name}.onnx")
    how, errs = export_onnx(net, path)
    golden(net, os.path.join(out, f"golden-{name}.json"))
    print(json.dumps({"onnx": path, "exporter": how, "fallback_errors": errs, "check": ort_check(path, net)}), flush=True)


# --- main

def main():
    ap = argparse.ArgumentParser(description="train separation v4 on a GPU within a wall-clock budget")
    gpu_run.add_run_args(ap, HERE, torch.cuda.is_available(), "(default 25 on a GPU: GPU run 1 needed 8 s; 20 on the CPU)")
    ap.add_argument("--arch", default="tcn", help="comma-separated: tcn, band, v3ft (model_v4.py); side by side they share the steps (GPU run 1: 7.5 steps/s for three, 15.7 for tcn alone)")
    ap.add_argument("--init-onnx", default=os.path.join(ROOT, "models", "separation", "separator.onnx"),
                    help="weights for arch v3ft")
    ap.add_argument("--baseline-onnx", default=os.path.join(ROOT, "models", "separation", "separator.onnx"),
                    help="the shipped model, evaluated on the same mixtures ('' to skip)")
    ap.add_argument("--batch", type=int, help="examples per step (default 64; 4 with --tiny)")
    ap.add_argument("--seconds", type=float, help="seconds per example (default 4; 2 with --tiny)")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--bf16", action="store_true", help="bf16 autocast for the models (default: fp32 with TF32)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the models (costs compile time)")
    ap.add_argument("--val-every", type=float, help="seconds between validations (default 45; 5 with --tiny)")
    ap.add_argument("--ckpt-minutes", type=float, default=2.0)
    ap.add_argument("--mix-ahead", type=int, help="batches mixed per mixer call (fewer kernel launches; default 4 on a "
                    "GPU, 1 on the CPU)")
    ap.add_argument("--resume", action="store_true", help="continue from --out/last-<arch>.pt")
    ap.add_argument("--export", metavar="PT", help="only export a selected state (<arch>.pt, e.g. brought back from the "
                    "GPU) to --out/separator-<arch>.onnx and golden-<arch>.json, then stop")
    args = ap.parse_args()
    if args.export:
        return export_only(args.export, args.out)
    t_start = time.time()
    device = torch.device(args.device)
    cuda = gpu_run.setup_torch(torch, device, args.threads, args.seed)
    amp = torch.bfloat16 if (args.bf16 and cuda) else None
    batch = args.batch or (4 if args.tiny else 64)
    seconds = args.seconds or (2.0 if args.tiny else 4.0)
    val_every = args.val_every or (5.0 if args.tiny else 45.0)
    reserve = args.reserve_s if args.reserve_s is not None else (25.0 if cuda else 20.0)
    os.makedirs(args.out, exist_ok=True)
    run_log = gpu_run.RunLog(os.path.join(args.out, "train_log.jsonl"), t_start, append=args.resume)
    note = run_log.note

    pack = packio.load(args.pack)
    dev_name = torch.cuda.get_device_name(device) if cuda else "cpu"
    note({"event": "start", "device": dev_name, "torch": torch.__version__, "pack": os.path.relpath(args.pack, ROOT),
          "pack_mib": round(os.path.getsize(args.pack) / 2 ** 20, 1), "arch": args.arch, "batch": batch,
          "seconds": seconds, "lr": args.lr, "minutes": args.minutes, "reserve_s": reserve, "tiny": args.tiny,
          "amp": str(amp)})
    mixer = gpu_mix.GpuMixer(pack, "train", device, seed=args.seed + 1)
    val_mixer = gpu_mix.GpuMixer(pack, "test", device, seed=1234)
    with torch.no_grad():
        val = val_mixer.batch(8 if args.tiny else 96, seconds)
    heldout = HeldOut(pack, device)

    models = []
    mean, std = normalisation(mixer, 2 if args.tiny else 8, batch, seconds)
    for arch in [a.strip() for a in args.arch.split(",") if a.strip()]:
        name, cfg, net = make(arch, args.tiny, device, args.init_onnx)
        if arch != "v3ft":
            net.set_normalisation(mean, std)
        opt = torch.optim.Adam(net.parameters(), lr=args.lr)
        m = {"name": name, "config": cfg, "net": net, "opt": opt, "step": 0, "spent": 0.0, "losses": [],
             "best": None, "best_val": -1e9, "params": sum(p.numel() for p in net.parameters()), "skipped": 0}
        last = os.path.join(args.out, f"last-{name}.pt")
        if args.resume and os.path.exists(last):
            ck = torch.load(last, map_location=device)
            net.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            m.update(step=ck["step"], spent=ck["spent"], best_val=ck.get("best_val", -1e9))
            m["best"] = ck.get("best")
        m["fwd"] = torch.compile(net) if args.compile else net
        models.append(m)
        note({"event": "model", "name": name, "config": cfg, "params": m["params"], "resumed_step": m["step"]})

    def validate(m):
        net = m["fwd"]
        net.eval()
        with torch.no_grad():
            e = separate(net, val["mix"], amp)
            has = val["has_speech"]
            imp = (si_sdr(e[has], val["speech"][has]) - si_sdr(val["mix"][has], val["speech"][has])).mean().item()
            q = ~has
            quiet = (10 * torch.log10(e[q].pow(2).sum(-1) / (val["mix"][q].pow(2).sum(-1) + 1e-12) + 1e-12)).mean().item() \
                if q.any() else float("nan")
        net.train()
        return imp, quiet

    def save_last(m):
        torch.save({"model": m["net"].state_dict(), "opt": m["opt"].state_dict(), "step": m["step"],
                    "spent": m["spent"], "config": m["config"], "best": m["best"], "best_val": m["best_val"]},
                   os.path.join(args.out, f"last-{m['name']}.pt"))

    # --- training
    train_end = t_start + args.minutes * 60 - reserve
    t_train0 = time.time()
    spent0 = max([m["spent"] for m in models] + [0.0])
    budget = max(1e-3, train_end - t_train0 + spent0)
    last_val = last_ckpt = time.time()
    mix_time, mix_calls, steps = 0.0, 0, 0
    ahead = args.mix_ahead or (4 if cuda else 1)
    queue = []
    note({"event": "training", "seconds_for_training": round(train_end - t_train0, 1)})
    while time.time() < train_end and not run_log.stopping:
        frac = min(1.0, (time.time() - t_train0 + spent0) / budget)
        lr_peak = args.lr
        if frac < 0.03:
            lr = lr_peak * (0.1 + 0.9 * frac / 0.03)
        else:
            lr = lr_peak * (0.03 + 0.97 * 0.5 * (1 + math.cos(math.pi * (frac - 0.03) / 0.97)))
        if not queue:
            timed = mix_calls % 10 == 0  # time every tenth mixer call (timing needs a device sync)
            if timed and cuda:
                torch.cuda.synchronize()
            tm = time.time()
            with torch.no_grad():
                big = mixer.batch(batch * ahead, seconds)
            queue = [{k: v[i * batch:(i + 1) * batch] for k, v in big.items()} for i in range(ahead)]
            if timed:
                if cuda:
                    torch.cuda.synchronize()
                mix_time += (time.time() - tm) * 10
            mix_calls += 1
        b = queue.pop(0)
        for m in models:
            for g in m["opt"].param_groups:
                g["lr"] = lr
            est = separate(m["fwd"], b["mix"], amp)
            loss = speech_loss(est, b["mix"], b["speech"])
            if not torch.isfinite(loss):
                m["skipped"] += 1
                m["opt"].zero_grad(set_to_none=True)
                continue
            m["opt"].zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(m["net"].parameters(), 5.0)
            m["opt"].step()
            m["losses"].append(loss.detach())
            m["step"] += 1
        steps += 1
        now = time.time()
        if now - last_val > val_every or now >= train_end:
            rec = {"step": steps, "min": round((now - t_train0 + spent0) / 60, 2), "lr": round(lr, 6),
                   "steps_per_s": round(steps / (now - t_train0), 2),
                   "mix_ms_per_batch": round(1000 * mix_time / max(1, mix_calls * ahead), 1)}
            for m in models:
                imp, quiet = validate(m)
                gpu_run.keep_best(m, imp)
                ls = torch.stack(m["losses"]).mean().item() if m["losses"] else float("nan")
                m["losses"] = []
                rec[m["name"]] = {"loss": round(ls, 3), "val_sisdri": round(imp, 2), "val_nospeech_db": round(quiet, 1)}
            note(rec)
            last_val = time.time()
        if time.time() - last_ckpt > args.ckpt_minutes * 60:
            for m in models:
                m["spent"] = time.time() - t_train0 + spent0
                save_last(m)
            last_ckpt = time.time()
    for m in models:
        m["spent"] = time.time() - t_train0 + spent0
        save_last(m)
    train_s = time.time() - t_train0
    note({"event": "trained", "steps": steps, "train_s": round(train_s, 1),
          "steps_per_s": round(steps / max(train_s, 1e-9), 2),
          "mix_ms_per_batch": round(1000 * mix_time / max(1, mix_calls * ahead), 1)})

    # --- held-out evaluation
    results = {"run": {"device": dev_name, "torch": torch.__version__, "arch": args.arch, "batch": batch,
                       "seconds": seconds, "lr": args.lr, "minutes_budget": args.minutes, "steps": steps,
                       "train_minutes": round(train_s / 60, 2), "amp": str(amp), "tiny": args.tiny,
                       "examples_seen": steps * batch, "pack": pack["meta"]},
               "heldout": {"items": len(heldout.labels), "seconds_each": pack["meta"].get("eval_seconds")},
               "models": {}}
    t_eval = time.time()
    results["oracle_irm"] = heldout.evaluate_oracle()
    if args.baseline_onnx and os.path.exists(args.baseline_onnx):
        try:
            from train import state_from_onnx
            v3 = model_v4.build(dict(model_v4.DEFAULTS["v3"]))
            v3.load_state_dict(state_from_onnx(args.baseline_onnx, v3))
            v3 = v3.to(device).eval()
            results["shipped_v3"] = heldout.evaluate(v3)
        except Exception as e:  # noqa: BLE001  (no onnx package: report, go on)
            results["shipped_v3"] = {"error": f"{type(e).__name__}: {e}"}
    for m in models:
        net = gpu_run.selected(m)
        r = {"params": m["params"], "config": m["config"], "steps": m["step"], "best_val_step": m.get("best_step"),
             "val_sisdri_best": round(m["best_val"], 2), "skipped_steps": m["skipped"]}
        r["heldout"] = heldout.evaluate(net, amp)
        torch.save({"model": net.state_dict(), "config": m["config"], "step": m["step"]},
                   os.path.join(args.out, f"{m['name']}.pt"))
        results["models"][m["name"]] = r
    results["eval_seconds"] = round(time.time() - t_eval, 1)

    # --- export
    t_exp = time.time()
    for m in models:
        r = results["models"][m["name"]]
        path = os.path.join(args.out, f"separator-{m['name']}.onnx")
        try:
            how, errs = export_onnx(m["net"], path)
            golden(m["net"], os.path.join(args.out, f"golden-{m['name']}.json"))
            r["onnx"] = {"file": os.path.basename(path), "exporter": how, "mib": round(os.path.getsize(path) / 2 ** 20, 2),
                         "fallback_errors": errs, "check": ort_check(path, m["net"], 2.0 if args.tiny else 5.0)}
        except Exception as e:  # noqa: BLE001  (the .pt stays; export.py-style export can be redone on the CPU)
            r["onnx"] = {"error": f"{type(e).__name__}: {e}"}
    results["export_seconds"] = round(time.time() - t_exp, 1)
    results["wall_minutes"] = round((time.time() - t_start) / 60, 2)
    results["log"] = run_log.records()
    with open(os.path.join(args.out, "eval.json"), "w") as fh:
        json.dump(results, fh, indent=1)
    brief = {"wall_minutes": results["wall_minutes"], "steps": steps,
             "oracle": results["oracle_irm"].get("all", {}).get("mean"),
             "shipped_v3": results.get("shipped_v3", {}).get("all"),
             **{n: {"all": r["heldout"].get("all"), "nospeech_song": r["heldout"].get("nospeech/song"),
                    "onnx": {k: v for k, v in r["onnx"].items() if k != "fallback_errors"}}
                for n, r in results["models"].items()}}
    note({"event": "done", **brief})
    if args.copy_to:
        gpu_run.copy_results(args.out, "separator", [m["name"] for m in models], args.copy_to, args.copy_max)


if __name__ == "__main__":
    main()
