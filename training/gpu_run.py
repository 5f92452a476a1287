"""What the short GPU training runs share (training/separation/train_gpu.py, training/lipsync/train_gpu.py): torch
set-up, the common options, the pack's container, the run's JSON-lines log with a graceful stop on SIGTERM / SIGINT, copying at most N result files back,
and the compressed size of a pack's members."""
import json
import os
import shutil
import signal
import time
import zipfile

import numpy as np


def add_run_args(ap, here, cuda_available, reserve_help):
    """The options every GPU run script has: pack, device, budget, tiny, output, copying back, seed, threads."""
    ap.add_argument("--pack", default=os.path.join(here, "pack", "pack.npz"))
    ap.add_argument("--device", default="cuda" if cuda_available else "cpu")
    ap.add_argument("--minutes", type=float, default=8.0, help="budget of the whole script (wall clock)")
    ap.add_argument("--reserve-s", type=float, help="seconds kept for evaluation and export " + reserve_help)
    ap.add_argument("--tiny", action="store_true", help="tiny models and batches (the CPU end-to-end check)")
    ap.add_argument("--out", default=os.path.join(here, "checkpoints", "gpu"))
    ap.add_argument("--copy-to", help="copy the results here (e.g. $OUT on the device machine)")
    ap.add_argument("--copy-max", type=int, default=8, help="at most this many files to --copy-to")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (CPU runs)")


def save_pack(path, arrays, meta):
    """A pack: the arrays and `meta` (a JSON string) in one deflated .npz."""
    np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)


def load_pack(path, decode=lambda name, a: a):
    """{name: decode(name, array)} of a pack, with `meta` parsed."""
    out = {}
    with np.load(path, allow_pickle=False) as z:
        for k in z.files:
            out[k] = json.loads(str(z[k])) if k == "meta" else decode(k, z[k])
    return out


def ort_session(path):
    """A one-thread CPU session of Python's onnxruntime (as the engine runs models), or None where it is not
    installed (Debian has no package: the CPU side checks with the node scripts instead)."""
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def runs_per_cpu_second(fn, seconds):
    """Calls fn once to warm up, then as often as fits in `seconds` of this process's CPU time; returns calls per
    CPU second."""
    fn()
    n, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        fn()
        n += 1
    return n / (time.process_time() - t0)


def setup_torch(torch, device, threads, seed):
    """CPU threads, the seed, and TF32 + cuDNN autotuning on CUDA. Returns whether the device is CUDA."""
    cuda = device.type == "cuda"
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.benchmark = True
    return cuda


class RunLog:
    """`note(record)` prints a JSON line and appends it to `path`, with the seconds since `t_start`; after SIGTERM or
    SIGINT, `stopping` is true (the training loop ends, evaluation and export still run)."""

    def __init__(self, path, t_start, append=False):
        self.path, self.t_start, self.stopping = path, t_start, False
        self.file = open(path, "a" if append else "w")
        signal.signal(signal.SIGTERM, self._on_signal)
        signal.signal(signal.SIGINT, self._on_signal)

    def note(self, rec):
        rec = {"t": round(time.time() - self.t_start, 1), **rec}
        print(json.dumps(rec), flush=True)
        self.file.write(json.dumps(rec) + "\n")
        self.file.flush()

    def _on_signal(self, signum, _frame):
        self.stopping = True
        self.note({"event": f"signal {signum}: stopping, then evaluating and exporting"})

    def records(self):
        with open(self.path) as fh:
            return [json.loads(line) for line in fh if line.strip()]


def keep_best(m, score):
    """Keeps a copy of the model's state in m["best"] when `score` beats m["best_val"] (higher is better)."""
    if score > m["best_val"]:
        m["best_val"], m["best_step"] = score, m["step"]
        m["best"] = {k: v.detach().clone() for k, v in m["net"].state_dict().items()}


def selected(m):
    """The model in eval mode with its best kept state loaded (the last state if none was kept)."""
    if m["best"] is not None:
        m["net"].load_state_dict(m["best"])
    return m["net"].eval()


def copy_results(src_dir, onnx_prefix, names, dest, most, max_bytes=16 * 2 ** 20):
    """Copies a run's results from src_dir to dest, in this order while they exist, are under max_bytes and fewer
    than `most` are copied (the device tool brings back 8 files of < 16 MiB): eval.json, train_log.jsonl, then
    <onnx_prefix>-<name>.onnx and golden-<name>.json of each model name, then each <name>.pt. Returns the names."""
    files = ["eval.json", "train_log.jsonl"]
    files += [f for n in names for f in (f"{onnx_prefix}-{n}.onnx", f"golden-{n}.json")]
    files += [f"{n}.pt" for n in names]
    os.makedirs(dest, exist_ok=True)
    copied = []
    for f in files:
        src = os.path.join(src_dir, f)
        if os.path.exists(src) and len(copied) < most and os.path.getsize(src) < max_bytes:
            shutil.copy(src, os.path.join(dest, f))
            copied.append(f)
    print("copied to", dest, copied, flush=True)
    return copied


def zip_members(path):
    """Compressed size of each member of an .npz (for a pack's size report)."""
    with zipfile.ZipFile(path) as z:
        return {i.filename[:-4]: i.compress_size for i in z.infolist()}
