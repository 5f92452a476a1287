"""Frame-level scores of a viseme track against labels (all per 10 ms frame).

- frame accuracy over the 9 classes, rest-vs-speech accuracy (X vs the rest), macro recall;
- per-class recall and precision, confusion matrix (rows true, columns predicted);
- onset timing: every speech onset in the labels (a non-X frame after >= 100 ms of X) is matched
  with the nearest predicted onset (predicted non-X after a predicted X) within +-250 ms; the
  signed error (predicted - true) in ms; same for offsets (speech -> rest before >= 100 ms of X).
"""
import numpy as np

from visemes import VISEMES

MIN_PAUSE = 10  # frames of rest before an onset / after an offset
WINDOW = 25  # frames: an onset with no predicted onset this close is "missed"


def scores(pred, labels):
    rest_speech = ((pred == 0) == (labels == 0)).mean()
    recalls = [((pred == k) & (labels == k)).sum() / max((labels == k).sum(), 1) for k in range(9)]
    return dict(frame_accuracy=float((pred == labels).mean()), rest_vs_speech_accuracy=float(rest_speech),
                macro_recall=float(np.mean(recalls)))


def per_class(pred, labels):
    out = {}
    for k, v in enumerate(VISEMES):
        tp = int(((pred == k) & (labels == k)).sum())
        out[v] = dict(recall=tp / max(int((labels == k).sum()), 1), precision=tp / max(int((pred == k).sum()), 1),
                      share=float((labels == k).mean()))
    return out


def confusion(pred, labels):
    m = np.zeros((9, 9), np.int64)
    np.add.at(m, (labels, pred), 1)
    return {"classes": VISEMES, "matrix": m.tolist()}


def _edges(speech, rising):
    """Frames where speech starts (rising) or ends (not rising), with >= MIN_PAUSE frames of rest
    on the rest side."""
    s = speech.astype(np.int8)
    d = np.diff(s)
    idx = np.nonzero(d == (1 if rising else -1))[0] + 1
    out = []
    for t in idx:
        rest = s[max(t - MIN_PAUSE, 0):t] if rising else s[t:t + MIN_PAUSE]
        if len(rest) == MIN_PAUSE and not rest.any():
            out.append(t)
    return np.array(out, np.int64)


def _all_edges(speech, rising):
    d = np.diff(speech.astype(np.int8))
    return np.nonzero(d == (1 if rising else -1))[0] + 1


def timing(pred, labels, lengths):
    """Onset/offset errors in ms over utterances (signed: predicted - true)."""
    res = {}
    for name, rising in (("onset", True), ("offset", False)):
        errs, missed, total = [], 0, 0
        s = 0
        for n in lengths:
            lab, p = labels[s:s + n] != 0, pred[s:s + n] != 0
            s += n
            true_t = _edges(lab, rising)
            pred_t = _all_edges(p, rising)
            for t in true_t:
                total += 1
                if len(pred_t) == 0:
                    missed += 1
                    continue
                j = pred_t[np.argmin(np.abs(pred_t - t))]
                if abs(j - t) > WINDOW:
                    missed += 1
                else:
                    errs.append((j - t) * 10)
        e = np.array(errs, np.float64)
        res[name] = dict(
            count=total, missed=missed,
            median_abs_ms=float(np.median(np.abs(e))) if len(e) else None,
            mean_abs_ms=float(np.mean(np.abs(e))) if len(e) else None,
            mean_signed_ms=float(np.mean(e)) if len(e) else None,
            within_40ms=float((np.abs(e) <= 40).sum() / max(total, 1)),
        )
    return res


def report(pred, labels, lengths):
    return dict(**scores(pred, labels), per_class=per_class(pred, labels), timing=timing(pred, labels, lengths),
                confusion_rows_true_cols_pred=confusion(pred, labels))
