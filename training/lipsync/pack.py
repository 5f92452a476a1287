"""Builds the viseme GPU training pack on the CPU: training/lipsync/pack/pack.npz (format: packio.py), small enough
to travel to a GPU machine with the code (≤ 64 MiB per command, the working tree included; default budget 40 MiB).

    cd training/lipsync && OMP_NUM_THREADS=1 nice -n 19 /usr/bin/python3 pack.py [--mib 40] [--out pack/pack.npz]

One command: when data/ lacks them it first runs the recipe's own generators (README.md "Reproduce"), niced,
  gen_data.py --train 2400 --test 400   (synthetic espeak-ng speech: data/train.npz, data/test.npz, data/meta.json)
  gen_real.py                           (real speech, force-aligned: data/real_train.npz, data/real_test.npz)
(~1 h on the shared 2-core machine the first time), then packs their log-mel features and frame labels — the very
arrays train.py and evaluate.py read — with the same split:
  real_test   the held-out real speakers (Allison en/es, Carlo it), all of them: what the targets are measured on
  real_train  the training speakers (June fr, IvrvoiceRU ru), augmented as gen_real.py makes them, less
  real_val    --val-share of those utterances (whole utterances; each prompt is in one utterance), for picking a state
  syn_val     the synthetic held-out voices and languages (gen_data.py test set), --syn-val utterances of it
  syn_train   the synthetic training utterances, as many as the budget leaves (a seeded random sample)
Features are quantised per band (packio.py: 8 bits for the scored sets, 7 for real_train, 6 for syn_train) and
delta-coded along time; the budget is kept by measuring deflate's bytes per frame on the synthetic training features
before choosing how many utterances fit.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))
import gpu_run  # noqa: E402
import packio  # noqa: E402

GENERATORS = {  # output files -> the command that makes them (from README.md "Reproduce")
    ("train.npz", "test.npz", "meta.json"): ["gen_data.py", "--train", "2400", "--test", "400"],
    ("real_train.npz", "real_test.npz"): ["gen_real.py"],
}
OVERHEAD_BYTES = 64 * 1024  # zip headers, meta, lengths, groups (measured: < 40 KiB)


def build_data(data):
    """Runs the generators whose outputs are missing from `data` (niced, one at a time)."""
    for outputs, cmd in GENERATORS.items():
        if all(os.path.exists(os.path.join(data, f)) for f in outputs):
            continue
        full = ["nice", "-n", "19", sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:], "--out", data]
        print("building data:", " ".join(full), flush=True)
        subprocess.run(full, check=True, cwd=HERE, env={**os.environ, "OMP_NUM_THREADS": "1"})


def read_set(npz, groups):
    """(float32 feats [frames, 40], uint8 labels [frames], int lengths [utts], group names [utts])."""
    d = np.load(npz)
    lengths = d["lengths"].astype(np.int64)
    if len(groups) != len(lengths):
        raise ValueError(f"{npz}: {len(lengths)} utterances but {len(groups)} metadata rows")
    return d["feats"].astype(np.float32), d["labels"].astype(np.uint8), lengths, list(groups)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load_sources(data):
    meta = read_json(os.path.join(data, "meta.json"))
    syn_group = lambda m: m["lang"]  # noqa: E731
    real_meta = lambda name: read_json(os.path.join(data, name + ".json"))  # noqa: E731
    return {
        "syn_train": read_set(os.path.join(data, "train.npz"), [syn_group(m) for m in meta["train"]]),
        "syn_test": read_set(os.path.join(data, "test.npz"), [syn_group(m) for m in meta["test"]]),
        "real_train": read_set(os.path.join(data, "real_train.npz"), [m["speaker"] for m in real_meta("real_train.npz")]),
        "real_test": read_set(os.path.join(data, "real_test.npz"), [m["speaker"] for m in real_meta("real_test.npz")]),
    }, meta


def take(src, utts):
    """The utterances `utts` (indices, kept in the given order) of a (feats, labels, lengths, groups) set."""
    feats, labels, lengths, groups = src
    offs = np.concatenate([[0], np.cumsum(lengths)])
    rows = np.concatenate([np.arange(offs[u], offs[u + 1]) for u in utts]) if len(utts) else np.zeros(0, np.int64)
    return feats[rows], labels[rows], lengths[list(utts)], [groups[u] for u in utts]


def set_arrays(name, part, bits=None):
    """The pack's arrays of one set (format: packio.py), its features quantised at packio.BITS[name] bits."""
    feats, labels, lengths, groups = part
    bits = bits or packio.BITS.get(name, 8)
    lo, step = packio.quantiser([feats], bits) if len(feats) else (np.zeros(40, np.float32), np.ones(40, np.float32))
    names = sorted(set(groups))
    return {f"{name}_feats": packio.delta(packio.quantise(feats, lo, step, bits)), f"{name}_lo": lo,
            f"{name}_step": step, f"{name}_labels": labels.astype(np.uint8),
            f"{name}_lengths": lengths.astype(np.int32),
            f"{name}_group": np.array([names.index(g) for g in groups], np.int16),
            f"{name}_groups": np.array(names)}


def deflated(arrays):
    """Bytes of the arrays after deflate (numpy's savez_compressed level)."""
    return sum(len(zlib.compress(np.ascontiguousarray(a).tobytes(), 6)) for a in arrays.values()
               if a.dtype.kind != "U") + sum(a.nbytes for a in arrays.values() if a.dtype.kind == "U")


def split_val(groups, share, rng):
    """Utterance indices (train, val): `share` of each group's utterances (at least one) go to val."""
    train, val = [], []
    for g in sorted(set(groups)):
        idx = [i for i, x in enumerate(groups) if x == g]
        rng.shuffle(idx)
        k = max(1, int(round(len(idx) * share))) if share > 0 else 0
        val += sorted(idx[:k])
        train += sorted(idx[k:])
    return sorted(train), sorted(val)


def build(sources, mib, val_share, syn_val, seed):
    """{array name: array}, meta. Fixed parts first (real_test whole, real_train/real_val, syn_val), then as many
    syn_train utterances as the budget leaves."""
    rng = np.random.default_rng(seed)
    tr, va = split_val(sources["real_train"][3], val_share, rng)
    n_test = len(sources["syn_test"][2])
    sv = np.unique(np.linspace(0, n_test - 1, min(syn_val, n_test)).round().astype(int))  # both halves alike
    parts = {"real_test": take(sources["real_test"], range(len(sources["real_test"][2]))),
             "real_train": take(sources["real_train"], tr), "real_val": take(sources["real_train"], va),
             "syn_val": take(sources["syn_test"], sv)}
    arrays = {}
    for name, part in parts.items():
        arrays.update(set_arrays(name, part))
    used = deflated(arrays) + OVERHEAD_BYTES
    budget = int(mib * 2 ** 20)
    syn = sources["syn_train"]
    order = rng.permutation(len(syn[2]))
    probe = take(syn, order[: min(len(order), 200)])
    per_frame = deflated(set_arrays("p", probe, packio.BITS["syn_train"])) / max(1, len(probe[1]))
    room = max(0, budget - used)
    cum = np.cumsum(syn[2][order])
    n = int(np.searchsorted(cum, room / per_frame, side="right"))
    chosen = sorted(order[:n].tolist())
    parts["syn_train"] = take(syn, chosen)
    arrays.update(set_arrays("syn_train", parts["syn_train"]))
    hours = {k: round(float(p[2].sum()) / 360000, 3) for k, p in parts.items()}
    meta = {"sets": {k: {"utterances": int(len(p[2])), "frames": int(p[2].sum()), "hours": hours[k],
                         "groups": {g: int(c) for g, c in zip(*np.unique(p[3], return_counts=True))}}
                     for k, p in parts.items()},
            "syn_train_of": int(len(syn[2])), "val_share": val_share, "seed": seed, "budget_mib": mib,
            "deflate_bytes_per_frame_syn": round(per_frame, 2),
            "bits": packio.BITS,
            "max_quantisation_error": {k: round(float(arrays[f"{k}_step"].max() / 2), 4) for k in parts}}
    return arrays, meta


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--out", default=os.path.join(HERE, "pack", "pack.npz"))
    ap.add_argument("--mib", type=float, default=40.0, help="size budget of the pack (MiB)")
    ap.add_argument("--val-share", type=float, default=0.1, help="share of the real training utterances kept for "
                    "validation (per speaker)")
    ap.add_argument("--syn-val", type=int, default=100, help="synthetic held-out utterances for validation")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-build", action="store_true", help="fail instead of running the generators")
    a = ap.parse_args()
    t0 = time.time()
    if not a.no_build:
        build_data(a.data)
    sources, _ = load_sources(a.data)
    arrays, meta = build(sources, a.mib, a.val_share, a.syn_val, a.seed)
    meta["built_s"] = round(time.time() - t0, 1)
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    packio.save(a.out, arrays, meta)
    size = os.path.getsize(a.out)
    sizes = gpu_run.zip_members(a.out)
    print(json.dumps(meta["sets"], indent=1))
    print("member MiB:", {k: round(v / 2 ** 20, 2) for k, v in sizes.items() if v > 2 ** 16})
    print(f"wrote {a.out}: {size / 2 ** 20:.1f} MiB (budget {a.mib}), syn_train {meta['sets']['syn_train']['utterances']}"
          f" of {meta['syn_train_of']} utterances, {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
