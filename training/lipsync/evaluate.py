"""Held-out evaluation: the viseme recogniser vs a loudness-only baseline.

Baseline (implemented identically in src/inference/lipsync/loudness-baseline.ts): per-frame RMS
over the same 25 ms frames as the features, in dB relative to the recording's 95th-percentile
frame level; below t_rest -> X (rest), otherwise the mouth opens with loudness: B below t_c,
C below t_d, D above. The three thresholds are grid-searched on the TRAINING set for the best
9-class frame accuracy (the binary rest-vs-speech score gets its own best threshold), so the
baseline is as good as loudness alone can be on this label set.

Two held-out sets: the synthetic one (espeak-ng voices and languages never trained on, data/test.npz)
and real recorded speech of speakers never trained on (data/real_test.npz, gen_real.py), both scored
with metrics.py. With --previous PATH.onnx the model being replaced is scored on the same sets.

Writes training/lipsync/results.json and prints a summary.

Usage: python3 evaluate.py [--data DIR] [--ckpt checkpoints/viseme.pt] [--previous model.onnx]
"""
import json
import os

import numpy as np
import torch

import metrics
from metrics import scores
from visemes import VISEMES

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
BINS = np.arange(-80.0, 11.0, 1.0)  # relative dB bin edges
B_IDX, C_IDX, D_IDX = VISEMES.index("B"), VISEMES.index("C"), VISEMES.index("D")


def relative_db(rms, lengths):
    out = np.zeros(len(rms), np.float64)
    s = 0
    for n in lengths:
        db = 20 * np.log10(rms[s:s + n].astype(np.float64) + 1e-9)
        out[s:s + n] = db - np.percentile(db, 95)
        s += n
    return out


def tune_baseline(rel, labels):
    """Best (t_rest, t_c, t_d) for 9-class accuracy and best t_rest for rest-vs-speech accuracy."""
    nb = len(BINS) + 1
    b = np.digitize(rel, BINS)  # bin i = values in [BINS[i-1], BINS[i])
    counts = np.zeros((nb, 9))
    np.add.at(counts, (b, labels), 1)
    cum = np.vstack([np.zeros((1, 9)), np.cumsum(counts, 0)])  # cum[i] = sum of bins < i
    seg = lambda lo, hi, k: cum[hi, k] - cum[lo, k]
    best = (-1, None)
    for i in range(nb + 1):
        for j in range(i, nb + 1):
            for k in range(j, nb + 1):
                acc = seg(0, i, 0) + seg(i, j, B_IDX) + seg(j, k, C_IDX) + seg(k, nb, D_IDX)
                if acc > best[0]:
                    best = (acc, (i, j, k))
    edge = lambda i: float(BINS[i - 1]) if i > 0 else -np.inf  # bin index i starts at BINS[i-1]
    t = tuple(edge(i) if i <= len(BINS) else np.inf for i in best[1])
    speech = counts[:, 1:].sum(1)
    rest = counts[:, 0]
    bin_acc = [rest[:i].sum() + speech[i:].sum() for i in range(nb + 1)]
    t_bin = edge(int(np.argmax(bin_acc)))
    return t, t_bin


def baseline_predict(rel, t):
    t_rest, t_c, t_d = t
    pred = np.full(len(rel), B_IDX)
    pred[rel < t_rest] = 0
    pred[(rel >= t_c)] = C_IDX
    pred[(rel >= t_d)] = D_IDX
    return pred




@torch.no_grad()
def model_predict(net, feats, lengths):
    pred = np.zeros(len(feats), np.int64)
    s = 0
    for n in lengths:
        pred[s:s + n] = net(torch.from_numpy(feats[s:s + n].astype(np.float32))[None])[0].argmax(-1).numpy()
        s += n
    return pred


def real_section(data, net, previous, t_synth):
    """Scores on the real held-out speakers: model, loudness baseline (thresholds tuned on the synthetic
    training set, and on the real training speakers), per speaker, and the replaced model."""
    te = np.load(os.path.join(data, "real_test.npz"))
    meta = json.load(open(os.path.join(data, "real_test.npz.json"), encoding="utf-8"))
    labels, lengths = te["labels"].astype(np.int64), te["lengths"]
    rel = relative_db(te["rms"], lengths)
    pred = model_predict(net, te["feats"], lengths)
    out = dict(frames=int(len(labels)), utterances=int(len(lengths)), hours=len(labels) / 360000,
               speakers=sorted({m["speaker"] for m in meta}),
               class_distribution={v: float((labels == k).mean()) for k, v in enumerate(VISEMES)},
               majority_class_accuracy=float(np.bincount(labels, minlength=9).max() / len(labels)),
               model=metrics.report(pred, labels, lengths))
    base = baseline_predict(rel, t_synth)
    out["baseline"] = dict(**scores(base, labels), timing=metrics.timing(base, labels, lengths),
                           thresholds_db="tuned on the synthetic training set")
    rt_path = os.path.join(data, "real_train.npz")
    if os.path.exists(rt_path):
        rt = np.load(rt_path)
        t_real, _ = tune_baseline(relative_db(rt["rms"], rt["lengths"]), rt["labels"].astype(np.int64))
        out["baseline_tuned_on_real"] = dict(**scores(baseline_predict(rel, t_real), labels),
                                             thresholds_db=dict(rest=t_real[0], c=t_real[1], d=t_real[2]))
    spk = np.concatenate([np.full(n, m["speaker"]) for n, m in zip(lengths, meta)])
    out["per_speaker"] = {s: dict(frames=int((spk == s).sum()), model=scores(pred[spk == s], labels[spk == s]),
                                  baseline=scores(base[spk == s], labels[spk == s]))
                          for s in out["speakers"]}
    if previous is not None:
        prev = model_predict(previous, te["feats"], lengths)
        out["previous_model"] = dict(**scores(prev, labels), timing=metrics.timing(prev, labels, lengths))
    return out


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    ap.add_argument("--ckpt", default=os.path.join(HERE, "checkpoints", "viseme.pt"))
    ap.add_argument("--onnx", help="score this exported model instead of --ckpt")
    ap.add_argument("--previous", help="the model being replaced (.onnx), scored on the same sets")
    ap.add_argument("--out", default=os.path.join(HERE, "results.json"))
    a = ap.parse_args()
    data = a.data
    tr = np.load(os.path.join(data, "train.npz"))
    te = np.load(os.path.join(data, "test.npz"))
    meta = json.load(open(os.path.join(data, "meta.json"), encoding="utf-8"))
    t, t_bin = tune_baseline(relative_db(tr["rms"], tr["lengths"]), tr["labels"].astype(np.int64))
    labels = te["labels"].astype(np.int64)
    rel = relative_db(te["rms"], te["lengths"])
    base = baseline_predict(rel, t)
    base_scores = scores(base, labels)
    base_scores["rest_vs_speech_accuracy_binary_threshold"] = float(((rel >= t_bin) == (labels != 0)).mean())
    base_scores["timing"] = metrics.timing(base, labels, te["lengths"])

    from onnx_import import load_model
    net = load_model(a.onnx or a.ckpt)
    previous = load_model(a.previous) if a.previous else None
    pred = model_predict(net, te["feats"], te["lengths"])
    model_scores = scores(pred, labels)
    model_scores["per_class"] = metrics.per_class(pred, labels)
    model_scores["timing"] = metrics.timing(pred, labels, te["lengths"])

    # subsets: held-out voices on training languages / held-out languages
    heldout_lang = np.concatenate([np.full(n, m["lang"] in meta["heldout_languages"])
                                   for n, m in zip(te["lengths"], meta["test"])])
    subsets = {}
    for name, mask in [("heldout_voices_train_languages", ~heldout_lang), ("heldout_languages", heldout_lang)]:
        subsets[name] = dict(model=scores(pred[mask], labels[mask]), baseline=scores(base[mask], labels[mask]),
                             frames=int(mask.sum()))
    rt_path = os.path.join(data, "real_train.npz")
    res = dict(
        test_frames=int(len(labels)), test_utterances=int(len(te["lengths"])),
        train_frames=int(len(tr["labels"])), train_utterances=int(len(tr["lengths"])),
        real_train_frames=int(len(np.load(rt_path)["labels"])) if os.path.exists(rt_path) else 0,
        majority_class_accuracy=float(np.bincount(labels, minlength=9).max() / len(labels)),
        class_distribution_test={v: float((labels == k).mean()) for k, v in enumerate(VISEMES)},
        baseline_thresholds_db=dict(rest=t[0], c=t[1], d=t[2], rest_binary=t_bin),
        model=model_scores, baseline=base_scores, subsets=subsets,
        confusion_rows_true_cols_pred=metrics.confusion(pred, labels),
        heldout_variants=meta["heldout_variants"], heldout_languages=meta["heldout_languages"],
    )
    if previous is not None:
        prev = model_predict(previous, te["feats"], te["lengths"])
        res["previous_model"] = dict(**scores(prev, labels), timing=metrics.timing(prev, labels, te["lengths"]))
    if os.path.exists(os.path.join(data, "real_test.npz")):
        res["real"] = real_section(data, net, previous, t)
    with open(a.out, "w") as f:
        json.dump(res, f, indent=1)
    short = lambda d: {k: round(v, 4) for k, v in d.items() if isinstance(v, float)}
    print("synthetic: model", short(model_scores), "baseline", short(base_scores))
    for name, s in subsets.items():
        print(name, "model", round(s["model"]["frame_accuracy"], 4), "baseline", round(s["baseline"]["frame_accuracy"], 4))
    if "previous_model" in res:
        print("synthetic: previous model", short(res["previous_model"]))
    if "real" in res:
        r = res["real"]
        print("real: model", short(r["model"]), "baseline", short(r["baseline"]))
        print("real timing", json.dumps(r["model"]["timing"]))
        for s, v in r["per_speaker"].items():
            print("  ", s, short(v["model"]))
        if "previous_model" in r:
            print("real: previous model", short(r["previous_model"]))


if __name__ == "__main__":
    main()
