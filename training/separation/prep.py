"""Builds the source pools for the separation model from Debian packages (no downloads).

Speech (real recorded voices):
  fillets-ng-data-cs  /usr/share/games/fillets-ng/sound/<level>/cs/*.ogg  (Czech game dialogue, many characters)
  alsa-utils          /usr/share/sounds/alsa/{Front,Rear,Side}_*.wav      (one speaker; test only)
Speech (synthetic): espeak-ng, many languages and voice variants; train/test variants are disjoint.
Speech (telephony prompts): asterisk-core-sounds-{en,es,fr}-g722 train; -ru-g722 and -it-g722 (other languages, other
  speakers) test only.
Ambience: fretsonfire-songs-muldjord/-sectoid (rock/metal songs, held out by song), synthetic singing (sing.py),
  hyperrogue-music (music tracks + sound effects), sonic-pi-samples (loops, ambi incl. sung choir, drums,
  instruments), fb-music-high (a tracker module via ffmpeg's libopenmpt), freedoom (sound effects parsed from the WAD),
  and the game soundtracks in MUSIC_PACKAGES (orchestral, rock, electronic, ambient; some with choirs);
  synthetic noise is generated on the fly in mixing.py.

Split: held out by source file (ambience), by level (fillets dialogue: test levels' lines, incl. their minor
characters), by speaker (alsa voice, espeak voice variants). Output: data/pools.npz with, per (kind, split),
one int16 array of concatenated clips plus clip offsets/categories, and data/split.json listing every file.
"""
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from scipy.signal import resample_poly

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
SR = 16000
sys.path.insert(0, os.path.join(HERE, "..", "lipsync"))
import textgen  # noqa: E402  (pseudo-sentences per language, shared with the lip-sync recipe)


def held_out(key, frac):
    h = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    return (h % 1000) < frac * 1000


STATIC_FFMPEG = os.path.join(HERE, "..", "..", "node_modules", "@ffmpeg-installer", "linux-x64", "ffmpeg")
# The static build starts in ~20 ms (Debian's in ~200 ms); Debian's has libopenmpt for tracker modules.
FFMPEGS = [b for b in (os.environ.get("FFMPEG"), STATIC_FFMPEG, "ffmpeg") if b and (b == "ffmpeg" or os.path.exists(b))]


def cached(fn):
    """Keeps each decoded file in data/cache/ (int16), so a prep that is stopped (or re-run) resumes where it was."""
    def wrapper(path):
        key = hashlib.sha1(f"{fn.__name__}:{path}:{os.path.getsize(path)}".encode()).hexdigest()[:16]
        dst = os.path.join(DATA, "cache", key + ".npy")
        if os.path.exists(dst):
            x = np.load(dst)
            return None if x.size == 0 else x.astype(np.float32) / 32767.0
        x = fn(path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        np.save(dst + ".tmp.npy", np.zeros(0, np.int16) if x is None else to_int16(x))
        os.replace(dst + ".tmp.npy", dst)
        return x
    return wrapper


def to_int16(x):
    return np.clip(np.asarray(x, np.float32) * 32767, -32768, 32767).astype(np.int16)


@cached
def decode(path):
    """16 kHz mono float32 (ffmpeg, else sox: ffmpeg rejects three hyperrogue Vorbis files), or None."""
    for binary in FFMPEGS:
        r = subprocess.run([binary, "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", str(SR), "-f", "f32le", "-"],
                           capture_output=True)
        if r.returncode == 0 and len(r.stdout) > 0:
            return np.frombuffer(r.stdout, dtype=np.float32)
    r = subprocess.run(["sox", path, "-r", str(SR), "-c", "1", "-t", "f32", "-"], capture_output=True)  # some Vorbis files
    if r.returncode == 0 and len(r.stdout) > 0:
        return np.frombuffer(r.stdout, dtype=np.float32)
    print(f"skipped unreadable {path}", flush=True)
    return None


def files(root, exts):
    out = []
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.lower().endswith(exts):
                out.append(os.path.join(d, f))
    return sorted(out)


def freedoom_sounds(wad):
    with open(wad, "rb") as fh:
        data = fh.read()
    _, n, ofs = struct.unpack("<4sii", data[:12])
    for i in range(n):
        pos, size, name = struct.unpack("<ii8s", data[ofs + 16 * i: ofs + 16 * i + 16])
        name = name.rstrip(b"\0").decode("ascii", "replace")
        if not name.startswith("DS") or size < 40:
            continue
        fmt, rate, count = struct.unpack("<HHI", data[pos:pos + 8])
        if fmt != 3 or rate == 0:
            continue
        pcm = np.frombuffer(data[pos + 24: pos + 8 + count - 16], dtype=np.uint8).astype(np.float32)
        pcm = (pcm - 128.0) / 128.0
        g = np.gcd(SR, rate)
        yield name, resample_poly(pcm, SR // g, rate // g).astype(np.float32)


# Game soundtracks packaged by Debian: (package, folder or .pk3 archive). Whole tracks, held out by file.
MUSIC_PACKAGES = [
    ("wesnoth-1.16-music", "/usr/share/games/wesnoth/1.16/data/core/music"),
    ("warzone2100-music", "/usr/share/games/warzone2100/music"),
    ("singularity-music", "/usr/share/games/singularity/music"),
    ("planetblupi-music-ogg", "/usr/share/planetblupi/music"),
    ("drascula-music", "/usr/share/scummvm/drascula/audio"),
    ("asc-music", "/usr/share/games/asc/music"),
    ("nexuiz-music", "/usr/share/games/nexuiz/data/music.pk3"),
    ("ufoai-music", "/usr/share/games/ufoai/base/0music.pk3"),
]
MUSIC_EXTS = (".ogg", ".opus", ".mp3", ".flac", ".wav")


def soundtrack_files():
    """Every track of MUSIC_PACKAGES that is installed; tracks inside .pk3 (zip) archives are extracted to data/pk3/."""
    import zipfile
    out = []
    for package, where in MUSIC_PACKAGES:
        if where.endswith(".pk3"):
            if not os.path.isfile(where):
                print(f"missing {package} ({where})", flush=True)
                continue
            dst = os.path.join(DATA, "pk3", package)
            with zipfile.ZipFile(where) as z:
                for info in z.infolist():
                    if info.filename.lower().endswith(MUSIC_EXTS):
                        target = os.path.join(dst, info.filename)
                        if not os.path.exists(target):
                            z.extract(info, dst)
                        out.append(target)
        elif os.path.isdir(where):
            out += files(where, MUSIC_EXTS)
        else:
            print(f"missing {package} ({where})", flush=True)
    return sorted(out)


ASTERISK = "/usr/share/asterisk/sounds"
# (folder, split): asterisk-core-sounds-{en,es,fr,it,ru}-g722. Train: Allison (English and Spanish), June (Canadian
# French); held out: the Russian voice and Carlo (Italian, male): languages and speakers never heard in training.
ASTERISK_VOICES = [("en_US_f_Allison", "train"), ("es_MX_f_Allison", "train"), ("fr_CA_f_June", "train"),
                   ("ru_RU_f_IvrvoiceRU", "test"), ("it_IT_m_Carlo", "test")]


@cached
def decode_g722(path):
    """Raw G.722 (16 kHz) as ffmpeg reads it with the format named."""
    r = subprocess.run([FFMPEGS[0], "-nostdin", "-v", "error", "-f", "g722", "-i", path, "-ac", "1", "-ar", str(SR),
                        "-f", "f32le", "-"], capture_output=True)
    return np.frombuffer(r.stdout, dtype=np.float32) if r.returncode == 0 and len(r.stdout) > 0 else None


FRETSONFIRE = "/usr/share/games/fretsonfire/data/songs"  # fretsonfire-songs-muldjord, -sectoid (CC BY-SA 3.0)


def fretsonfire_songs():
    """Whole songs (backing track song.ogg + guitar.ogg summed), held out by song (one per pack)."""
    out = []
    dirs = sorted(os.path.dirname(f) for f in files(FRETSONFIRE, ("song.ogg",)))
    # held out: one song per pack (the one whose name hashes lowest), so both packs' styles are tested
    test = {min((d for d in dirs if os.path.dirname(d) == pack), key=lambda d: hashlib.sha1(d.encode()).hexdigest())
            for pack in {os.path.dirname(d) for d in dirs}}
    for d in dirs:
        a, g = decode(os.path.join(d, "song.ogg")), decode(os.path.join(d, "guitar.ogg"))
        if a is None:
            continue
        if g is not None:
            n = min(len(a), len(g))
            a = a[:n] + g[:n]
        out.append((d, "test" if d in test else "train", a))
    return out


def _sing(args):
    import sing
    seed, i = args
    dst = os.path.join(DATA, "cache", f"sing-{seed}-{i}.npy")
    if os.path.exists(dst):
        return f"sing:{seed}:{i}", np.load(dst).astype(np.float32) / 32767.0
    x = sing.singing(np.random.default_rng([seed, i]), 8 * SR)
    x = x / (np.max(np.abs(x)) + 1e-9) * 0.9
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    np.save(dst + ".tmp.npy", to_int16(x))
    os.replace(dst + ".tmp.npy", dst)
    return f"sing:{seed}:{i}", x


def singing_clips(n, seed):
    """Synthetic singing (sing.py): n clips of 8 s; train and test use different seeds."""
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2) as pool:
        return list(pool.map(_sing, [(seed, i) for i in range(n)]))


def espeak_clips(n, voices, seed):
    import espeak_synth  # from ../lipsync: libespeak-ng through ctypes, no process per utterance
    langs = ["en", "en-us", "de", "fr", "es", "it", "pt", "nl", "pl", "cs", "sv", "fi", "tr", "ro", "hu", "da", "hr"]
    rng = random.Random(seed)
    clips = []
    for i in range(n):
        lang, var = rng.choice(langs), rng.choice(voices)
        text = " ".join(textgen.sentence(lang, rng) for _ in range(rng.randint(1, 3)))
        try:
            audio, _ = espeak_synth.synth(text, f"{lang}+{var}", rng.randint(120, 220), rng.randint(20, 80), rng.randint(20, 90))
        except ValueError:
            continue
        sr = espeak_synth.SAMPLE_RATE
        g = np.gcd(SR, sr)
        clips.append((f"espeak:{lang}+{var}", resample_poly(audio.astype(np.float32) / 32768.0, SR // g, sr // g)))
    return clips


def sources():
    """Every source clip, in prep's order: (kind, split, name, audio float32 or None, category, source), kind "speech"
    or "amb", split "train" or "test". `source` names what the split holds out together (a fillets level, an asterisk
    voice, an espeak voice variant, an ambience file, a fretsonfire song, a singing seed, a WAD lump), so pack.py can
    sample evenly over sources. Decoded files come from data/cache/ when prep ran before."""
    # --- real speech
    root = "/usr/share/games/fillets-ng/sound"
    dialogue = [f for f in files(root, (".ogg",)) if "/cs/" in f]
    with ThreadPoolExecutor(2) as pool:
        for f, x in zip(dialogue, pool.map(decode, dialogue)):
            level = f[len(root) + 1:].split("/")[0]
            yield "speech", "test" if held_out(level, 0.15) else "train", f, x, "real", "fillets:" + level
    for f in files("/usr/share/sounds/alsa", (".wav",)):
        if "Noise" in f:
            continue
        yield "speech", "test", f, decode(f), "real-unseen", "alsa"
    # telephony prompts (wideband G.722, 16 kHz), one speaker per folder: whole speakers and languages held out
    for folder, sp in ASTERISK_VOICES:
        prompts = files(os.path.join(ASTERISK, folder), (".g722",))
        if not prompts:
            print(f"missing asterisk voice {folder}", flush=True)
        with ThreadPoolExecutor(2) as pool:
            for f, x in zip(prompts, pool.map(decode_g722, prompts)):
                yield "speech", sp, f, x, "real" if sp == "train" else "real-unseen-language", "asterisk:" + folder
    # --- espeak speech, disjoint voice variants
    variants = sorted(os.listdir("/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v"))
    test_var = [v for v in variants if held_out("v:" + v, 0.2)]
    train_var = [v for v in variants if v not in test_var]
    for sp, vs, n, seed in (("train", train_var, int(os.environ.get("ESPEAK_TRAIN", 600)), 1),
                            ("test", test_var, int(os.environ.get("ESPEAK_TEST", 80)), 2)):
        for name, x in espeak_clips(n, vs, seed):
            yield "speech", sp, name, x, "tts", "espeak-variant:" + name.split("+", 1)[1]
    # --- ambience
    for f in files("/usr/share/hyperrogue/music", (".ogg",)) + files("/usr/share/sonic-pi/samples", (".flac", ".wav")):
        yield "amb", "test" if held_out(f, 0.2) else "train", f, decode(f), ambience_category(f), f
    for f in files("/usr/share/games/frozen-bubble/snd", (".xm", ".mod", ".ogg")):
        x = decode(f)
        if x is None:
            continue
        h = len(x) * 4 // 5  # one module: its first 80 % trains, the last 20 % is held out
        yield "amb", "train", f + "#head", x[:h], "music", f + "#head"
        yield "amb", "test", f + "#tail", x[h:], "music", f + "#tail"
    tracks = soundtrack_files()
    with ThreadPoolExecutor(2) as pool:
        for f, x in zip(tracks, pool.map(decode, tracks)):
            yield "amb", "test" if held_out(f, 0.2) else "train", f, x, "music", f
    for name, sp, x in fretsonfire_songs():
        yield "amb", sp, name, x, "song", name
    for sp, n, seed in (("train", int(os.environ.get("SING_TRAIN", 240)), 10), ("test", int(os.environ.get("SING_TEST", 40)), 20)):
        for name, x in singing_clips(n, seed):
            yield "amb", sp, name, x, "singing", name
    for wad in files("/usr/share/games/doom", (".wad",)):
        for name, x in freedoom_sounds(wad):
            key = f"{os.path.basename(wad)}:{name}"
            yield "amb", "test" if held_out(key, 0.2) else "train", key, x, "sfx", key


def espeak_test_variants():
    variants = sorted(os.listdir("/usr/lib/x86_64-linux-gnu/espeak-ng-data/voices/!v"))
    return [v for v in variants if held_out("v:" + v, 0.2)]


def usable(x):
    """A clip prep keeps (at least 0.25 s, not silent), scaled below full scale; else None."""
    if x is None:
        return None
    peak = float(np.max(np.abs(x))) if len(x) else 0.0
    if len(x) < SR // 4 or peak < 1e-3:
        return None
    if peak > 0.99:  # a sum of stems (fretsonfire) may exceed full scale
        x = x * (0.99 / peak)
    return x


def main():
    os.makedirs(DATA, exist_ok=True)
    pools = {(k, s): [] for k in ("speech", "amb") for s in ("train", "test")}
    split = {"speech": {"train": [], "test": []}, "amb": {"train": [], "test": []}}
    for kind, sp, name, x, cat, _ in sources():
        x = usable(x)
        if x is None:
            continue
        pools[(kind, sp)].append((to_int16(x), cat))  # int16 now: 17 h of float32 clips would need ~10 GB
        split[kind][sp].append(name)

    arrays = {}
    for (kind, sp), clips in pools.items():
        cats = sorted({c for _, c in clips})
        lens = np.array([len(x) for x, _ in clips], dtype=np.int64)
        arrays[f"{kind}_{sp}"] = np.concatenate([x for x, _ in clips])
        arrays[f"{kind}_{sp}_offsets"] = np.concatenate([[0], np.cumsum(lens)])
        arrays[f"{kind}_{sp}_cat"] = np.array([cats.index(c) for _, c in clips], dtype=np.int16)
        arrays[f"{kind}_{sp}_catnames"] = np.array(cats)
        hours = lens.sum() / SR / 3600
        print(f"{kind:6s} {sp:5s}: {len(clips):5d} clips, {hours:.2f} h, categories {cats}", flush=True)
    np.savez(os.path.join(DATA, "pools.npz"), **arrays)
    with open(os.path.join(DATA, "split.json"), "w") as fh:
        json.dump({"espeak_test_variants": espeak_test_variants(), **split}, fh, indent=1)
    write_heldout()

def ambience_category(path):
    b = os.path.basename(path)
    if path.endswith(MUSIC_EXTS) and any(path.startswith(w) or f"/pk3/{p}/" in path for p, w in MUSIC_PACKAGES):
        return "music"
    if "/hyperrogue/" in path:
        return "music" if b.startswith("hr") else "sfx"
    return "music" if b.startswith(("loop_", "ambi_", "guit_", "bass_", "mehackit")) else "sfx"


def ffmpeg_reads(path):
    return subprocess.run([FFMPEGS[0], "-v", "error", "-i", path, "-t", "1", "-f", "null", "-"], capture_output=True).returncode == 0


def write_heldout():
    """models/separation/heldout.json: the held-out files that exist as plain files, for bench/separation.ts."""
    with open(os.path.join(DATA, "split.json")) as fh:
        split = json.load(fh)
    amb = {"music": [], "sfx": [], "song": []}
    for f in split["amb"]["test"]:
        # Package files only (not the tracks extracted from .pk3 archives into data/); the bench decodes with ffmpeg.
        if f.startswith(FRETSONFIRE) and os.path.isdir(f):
            amb["song"].append(os.path.join(f, "song.ogg"))  # the backing track (drums, bass, keys, any vocals)
        elif f.startswith("/usr/") and os.path.isfile(f) and ffmpeg_reads(f):
            amb[ambience_category(f)].append(f)
    out = {"note": "held out of training by prep.py (by level / speaker / language / file); used by bench/separation.ts",
           "speech": [f for f in split["speech"]["test"] if f.startswith("/") and not f.startswith(ASTERISK)],
           "speechOtherLanguages": [f for f in split["speech"]["test"] if f.startswith(ASTERISK)],
           "espeak_test_variants": split["espeak_test_variants"], "ambience": amb}
    dst = os.path.join(HERE, "..", "..", "models", "separation", "heldout.json")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "w") as fh:
        json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
