"""The viseme training pack's format (numpy only, so it loads wherever numpy does; written by pack.py, read by
train_gpu.py).

One `.npz` (zip, deflate). Features are the engine's log-mel features (features.py, 40 bands at 100 frames/s),
quantised per band: value = lo[band] + step[band] · code, with lo and step chosen from the data so that every value
fits (rounding error ≤ step / 2), at BITS[set] bits: 8 for the sets that are scored (step ≤ 0.09 nats, 0.4 dB), fewer
for the training sets (7 bits: step ≤ 0.18 nats; 6: ≤ 0.37 nats; the error acts as a small dither), so that more
training speech fits. The codes are stored as the wrapping byte difference along time (deflate packs them ~18 %
smaller). Per set S in SETS:
  S_feats    uint8 [frames, 40]  delta-coded codes of all utterances back to back (load() undoes the delta)
  S_lo, S_step  float32 [40]     the set's quantiser
  S_labels   uint8 [frames]      viseme index per frame (visemes.VISEMES order: X A B C D E F G H)
  S_lengths  int32 [utts]        frames per utterance
  S_group    int16 [utts]        index into S_groups: the speaker (real sets) or language (synthetic)
Sets:
  syn_train   synthetic training utterances (gen_data.py train set; a sample when the budget is short)
  syn_val     synthetic held-out voices and languages (gen_data.py test set) — validation during training
  real_train  real speech of the training speakers (gen_real.py real_train.npz), less real_val
  real_val    a share of the training speakers' utterances, never trained on — validation during training
  real_test   the held-out real speakers (gen_real.py real_test.npz, Allison en/es, Carlo it), complete: the
              issue's targets are measured on it; never used for training or for picking a state
Also: meta, a JSON string (sources, sizes, settings).
"""
import os
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gpu_run  # noqa: E402

N_MELS = 40
N_CLASSES = 9
SETS = ("syn_train", "syn_val", "real_train", "real_val", "real_test")
BITS = {"syn_train": 6, "real_train": 7, "syn_val": 8, "real_val": 8, "real_test": 8}


def quantiser(arrays, bits=8):
    """(lo, step) per band covering every value of the given [frames, 40] arrays with 2^bits codes."""
    lo = np.min([a.min(0) for a in arrays if len(a)], axis=0).astype(np.float64)
    hi = np.max([a.max(0) for a in arrays if len(a)], axis=0).astype(np.float64)
    step = np.maximum(hi - lo, 1e-3) / (2 ** bits - 1)
    return lo.astype(np.float32), step.astype(np.float32)


def quantise(feats, lo, step, bits=8):
    q = np.round((np.asarray(feats, np.float32) - lo) / step)
    return np.clip(q, 0, 2 ** bits - 1).astype(np.uint8)


def dequantise(codes, lo, step):
    return (lo + step * np.asarray(codes, np.float32)).astype(np.float32)


def delta(codes):
    """Wrapping byte difference along time (axis 0; the first row kept), inverted by undelta."""
    c = np.asarray(codes, np.uint8)
    if len(c) == 0:
        return c
    return np.diff(c, axis=0, prepend=np.zeros_like(c[:1])).astype(np.uint8)


def undelta(d):
    return np.cumsum(np.asarray(d, np.uint8), axis=0, dtype=np.uint8)


def save(path, arrays, meta):
    gpu_run.save_pack(path, arrays, meta)


def _decode(name, a):
    return undelta(a) if name.endswith("_feats") else a


def decoded(arrays):
    """The arrays as stored → as load() returns them (the features' codes un-delta'd)."""
    return {k: _decode(k, a) for k, a in arrays.items()}


def load(path):
    """{name: array}, with the features' codes un-delta'd (see dequantise) and `meta` parsed."""
    return gpu_run.load_pack(path, _decode)


def features(pack, s):
    """Float32 features [frames, 40] of set s."""
    return dequantise(pack[f"{s}_feats"], pack[f"{s}_lo"], pack[f"{s}_step"])
