"""The training pack's format (numpy only, so it loads wherever numpy does; written by pack.py, read by train_gpu.py).

One `.npz` (zip, deflate). Audio is 16 kHz mono, 8-bit μ-law (μ = 255, 255 levels, exact zero; ~38 dB SNR on music
and speech), stored as the wrapping byte difference of consecutive codes (compresses ~15 % better than the codes).
Per pool P in POOLS and split S in ("train", "test"):
  P_S_audio    uint8 [n]        delta-coded μ-law codes of all clips back to back (each clip peak-normalised)
  P_S_offsets  int64 [clips+1]  clip boundaries
  P_S_rms      float32 [clips]  RMS of each decoded clip
  P_S_cat      int16 [clips]    index into P_S_catnames (e.g. speech: real, real-unseen, real-unseen-language, tts)
  P_S_source   int32 [clips]    index into P_S_sources: what the split holds out together (a fillets level, an asterisk
                                voice, an espeak variant, a track, a song, a singing seed, a WAD lump)
Held-out evaluation (fixed mixtures, built from the test split only; see pack.py):
  eval_speech, eval_amb, eval_coded   uint8 [rows, L] delta-coded μ-law rows (delta along each row), each row
                                      peak-normalised
  eval_items   int32 [items, 3]  (speech row or −1, ambience row, coded row or −1)
  eval_gain    float32 [items, 2] (speech gain, ambience gain) on the decoded rows: the reference speech is
                                  gs · speech row, the mixture gs · speech row + ga · ambience row, or, for a coded
                                  item, eval_coded_scale[coded row] · coded row (the ffmpeg round trip of that mixture;
                                  its reference stays the clean speech)
  eval_coded_scale float32 [coded rows]
  eval_snr     float32 [items]   the SNR (dB; NaN without speech)
  eval_label   str [items]       "<background>@<snr>dB/<speech kind>[+reverb|+codec:<name>]" or "nospeech/<background>"
Codec measurements (ffmpeg round trips of training mixtures, on the model's STFT):
  codec_names str [C], codec_response float32 [C, 257] (RMS gain per bin), codec_hole_prob float32 [C, 4, 9]
  (probability that a bin loses ≥ 20 dB, per quarter of the band 0–2/2–4/4–6/6–8 kHz and per level relative to the
  frame's loudest bin: 0…−10, −10…−20, …, below −80 dB)
`meta` is a JSON string (what went in, hours per pool and split, settings).
"""
import os
import sys

import numpy as np

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import gpu_run  # noqa: E402

SR = 16000
MU = 255.0
POOLS = ("speech", "music", "song", "sfx", "sung", "noise")
SPLITS = ("train", "test")
HOLE_LEVELS = np.arange(0, -90, -10)  # bucket upper edges in dB (9 buckets)


def mulaw_encode(x):
    """float in [−1, 1] → uint8 code 0..254 (127 is exact zero)."""
    x = np.clip(np.asarray(x, np.float32), -1.0, 1.0)
    y = np.sign(x) * np.log1p(MU * np.abs(x)) / np.log1p(MU)
    return (np.round(y * 127.0) + 127.0).astype(np.uint8)


def mulaw_table():
    """Decoded value of each of the 256 codes (255 is unused and decodes like 254)."""
    y = np.clip((np.arange(256, dtype=np.float64) - 127.0) / 127.0, -1.0, 1.0)
    return (np.sign(y) * ((1.0 + MU) ** np.abs(y) - 1.0) / MU).astype(np.float32)


def mulaw_decode(c):
    return mulaw_table()[np.asarray(c, np.uint8)]


def delta(codes, axis=-1):
    """Wrapping byte difference (first value kept), inverted by undelta."""
    c = np.asarray(codes, np.uint8)
    return np.diff(c, axis=axis, prepend=np.zeros_like(np.take(c, [0], axis=axis))).astype(np.uint8)


def undelta(d, axis=-1):
    return np.cumsum(np.asarray(d, np.uint8), axis=axis, dtype=np.uint8)


def save(path, arrays, meta):
    gpu_run.save_pack(path, arrays, meta)


def _decode(k, a):
    if k.endswith("_audio"):
        return undelta(a)
    if k in ("eval_speech", "eval_amb", "eval_coded"):
        return undelta(a, axis=1) if a.size else a
    return a


def load(path):
    """{name: array} with every *_audio and eval_* audio array already un-delta'd (μ-law codes), and `meta` parsed."""
    return gpu_run.load_pack(path, _decode)
