"""Real recorded speech with viseme labels from forced alignment (see README.md, "Real speech").

Sources (Debian packages; every recording's text is known):
- asterisk-core-sounds-{en,es,fr,it,ru}-g722: telephony prompts recorded by four professional speakers
  (G.722 = 16 kHz wideband), with the transcripts that the asterisk-core-sounds-* packages ship
  (/usr/share/doc/asterisk-core-sounds-LL/core-sounds-LL.txt.gz);
- fillets-ng-data-cs / fillets-ng-data-nl: the game Fish Fillets NG's spoken dialogue in Czech and Dutch
  (two voice casts: the small fish, the big fish and, in Czech, the minor characters; Vorbis, 22.05 kHz), with the
  dialogue text of fillets-ng-data (script/LEVEL/dialogs_LL.lua);
- festvox-ru: the recordings of Festival's msu_ru_nsh_clunits voice (one male speaker reading 620
  sentences of prose, 16 kHz), with its etc/txt.done.data.

Every recording is aligned once (align.py) and cached in data/real/SPEAKER.npz; then

- the held-out speakers (never trained on) become the real-speech evaluation set
  data/real_test.npz: prompts of one speaker joined into utterances of 1-4 prompts with
  0.25-1.2 s pauses (the recordings' own noise floor) and 0.3-1 s before/after, not augmented;
- the training speakers become data/real_train.npz: the same kind of utterances, --copies differently
  joined and augmented copies (augment.py, like the synthetic data).

Usage: python3 gen_real.py [--out DIR] [--copies 1] [--speakers asterisk|all] [--align-only]
"""
import argparse
import gzip
import json
import os
import random
import re
import subprocess
import time

import numpy as np

import augment
import features
import gen_data
import textgen
import visemes

SOUNDS = "/usr/share/asterisk/sounds"
FILLETS = "/usr/share/games/fillets-ng"
NSH = "/usr/share/festival/voices/russian/msu_ru_nsh_clunits"
# speaker id -> (source, source arguments, espeak-ng voice)
SPEAKERS = {
    "allison_en": ("asterisk", ("en_US_f_Allison", "en"), "en-us"),
    "allison_es": ("asterisk", ("es_MX_f_Allison", "es"), "es-419"),
    "carlo_it": ("asterisk", ("it_IT_m_Carlo", "it"), "it"),
    "june_fr": ("asterisk", ("fr_CA_f_June", "fr"), "fr"),
    "ivr_ru": ("asterisk", ("ru_RU_f_IvrvoiceRU", "ru"), "ru"),
    # Fish Fillets NG: the small fish (female voice), the big fish (male voice), everyone else (in Czech several
    # voices; the Dutch cast recorded the fish only)
    "fillets_cs_small": ("fillets", ("cs", "small"), "cs"),
    "fillets_cs_big": ("fillets", ("cs", "big"), "cs"),
    "fillets_cs_others": ("fillets", ("cs", None), "cs"),
    "fillets_nl_small": ("fillets", ("nl", "small"), "nl"),
    "fillets_nl_big": ("fillets", ("nl", "big"), "nl"),
    "nsh_ru": ("festvox", (NSH,), "ru"),
}
# whole speakers held out: Allison (US English and Mexican Spanish, female) and Carlo (Italian, male)
HELDOUT = ["allison_en", "allison_es", "carlo_it"]
TRAIN_SETS = {
    # v2: the two other asterisk speakers
    "asterisk": ["june_fr", "ivr_ru"],
    # the v3 experiment (not shipped, README.md): and the Fish Fillets casts and Festival's Russian voice
    "all": ["june_fr", "ivr_ru", "fillets_cs_small", "fillets_cs_big", "fillets_cs_others", "fillets_nl_small",
            "fillets_nl_big", "nsh_ru"],
}
MAX_PHONE_MS = 700  # an alignment with a longer phone is taken as a transcript mismatch and dropped


def transcript_file(lang, cache):
    """core-sounds-LL.txt.gz of the installed asterisk-core-sounds-LL, or else of its .deb (apt-get
    download into the cache folder: asterisk-prompt-* packages conflict with it and remove it)."""
    rel = f"usr/share/doc/asterisk-core-sounds-{lang}/core-sounds-{lang}.txt.gz"
    if os.path.exists("/" + rel):
        return "/" + rel
    deb_dir = os.path.join(cache, "debs")
    if not os.path.exists(os.path.join(deb_dir, rel)):
        os.makedirs(deb_dir, exist_ok=True)
        subprocess.run(["apt-get", "download", "-q", f"asterisk-core-sounds-{lang}"], cwd=deb_dir, check=True)
        deb = next(f for f in os.listdir(deb_dir) if f.startswith(f"asterisk-core-sounds-{lang}_"))
        subprocess.run(["dpkg-deb", "-x", os.path.join(deb_dir, deb), deb_dir], check=True)
    return os.path.join(deb_dir, rel)


def transcripts(lang, cache):
    """{prompt name: text} from core-sounds-LL.txt; prompts without speech text are left out."""
    out = {}
    with gzip.open(transcript_file(lang, cache), "rt", encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^([A-Za-z0-9_/.-]+):\s*(.*\S)\s*$", line)
            if not m or line.startswith(";"):
                continue
            name, text = m.groups()
            if lang == "en":
                text = text.replace("*", " star ").replace("#", " pound ")
            if re.search(r"[\[\]<>*#]", text) or not re.search(r"\w", text):
                continue  # tones, beeps, descriptions of sounds
            out[name] = text.replace('"', "")
    return out


_UNSPOKEN = re.compile(r"[\[\]<>*#%\\]")  # sounds, placeholders, escapes: not a readable text


def asterisk_prompts(folder, lang, cache):
    """[(name, text, path, ffmpeg input format)] of one asterisk voice folder."""
    items = [(name, text, os.path.join(SOUNDS, folder, name + ".g722"), "g722")
             for name, text in sorted(transcripts(lang, cache).items())]
    return [t for t in items if os.path.exists(t[2])]


def fillets_prompts(lang, who, cache):
    """[(name, text, path, None)] of one Fish Fillets NG voice cast: the lines of the small fish (who="small"),
    the big fish ("big") or everyone else (None). A line's sound is sound/LEVEL/LL/ID.ogg; its text is the
    dialogStr after dialogId("ID", "FONT", ...) in script/LEVEL/dialogs_LL.lua, and the font names the speaker:
    font_small is always the small fish and font_big the big fish (the ids' own fields do not always say)."""
    pattern = re.compile(r'dialogId\(\s*"([^"]+)"\s*,\s*"([^"]*)"[^\n]*\)\s*dialogStr\(\s*"((?:[^"\\]|\\.)*)"\s*\)')
    fonts = {"small": "font_small", "big": "font_big"}
    items = []
    script_dir = os.path.join(FILLETS, "script")
    for level in sorted(os.listdir(script_dir)):
        path = os.path.join(script_dir, level, f"dialogs_{lang}.lua")
        if not os.path.exists(path):
            continue
        for name, font, text in pattern.findall(open(path, encoding="utf-8").read()):
            if (font != fonts[who]) if who else (font in fonts.values()):
                continue
            sound = os.path.join(FILLETS, "sound", level, lang, name + ".ogg")
            if os.path.exists(sound) and not _UNSPOKEN.search(text) and re.search(r"\w", text):
                items.append((f"{level}/{name}", text, sound, None))
    return items


def festvox_prompts(voice_dir, cache):
    """[(name, text, path, None)] of a Festival unit-selection voice's recordings (etc/txt.done.data;
    '+' marks stress there and is dropped)."""
    items = []
    for line in open(os.path.join(voice_dir, "etc", "txt.done.data"), encoding="utf-8"):
        m = re.match(r'^\(\s*(\S+)\s+"(.*)"\s*\)\s*$', line)
        if m:
            name, text = m.groups()
            items.append((name, text.replace("+", ""), os.path.join(voice_dir, "wav", name + ".wav"), None))
    return [t for t in items if os.path.exists(t[2]) and not _UNSPOKEN.search(t[1])]


SOURCES = {"asterisk": asterisk_prompts, "fillets": fillets_prompts, "festvox": festvox_prompts}


def decode(paths, formats, batch=40):
    """Sound files (ffmpeg input format each, None = probed) -> int16 arrays at 16 kHz mono. ffmpeg's
    start-up costs more than decoding a prompt, so one ffmpeg run decodes a batch of files (one input and
    one output each, so every file starts from a fresh decoder state)."""
    import tempfile
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for b in range(0, len(paths), batch):
            chunk = paths[b:b + batch]
            cmd = ["ffmpeg", "-loglevel", "error", "-y"]
            for p, fmt in zip(chunk, formats[b:b + batch]):
                cmd += (["-f", fmt] if fmt else []) + ["-i", p]
            for i in range(len(chunk)):
                cmd += ["-map", f"{i}:a", "-ar", "16000", "-ac", "1", "-f", "s16le", os.path.join(tmp, f"{i}.raw")]
            subprocess.run(cmd, check=True)
            out += [np.fromfile(os.path.join(tmp, f"{i}.raw"), np.int16) for i in range(len(chunk))]
    return out


def align_speaker(spk, out_dir):
    """Aligns every prompt of a speaker once; cached in out_dir/SPK.npz (+ .json with the events)."""
    path = os.path.join(out_dir, spk + ".npz")
    if os.path.exists(path):
        return path
    import align
    source, args, voice = SPEAKERS[spk]
    aligner = align.Aligner()
    pcms, meta, dropped = [], [], []
    t0 = time.time()
    todo = SOURCES[source](*args, out_dir)
    if not todo:
        raise SystemExit(f"{spk}: no recordings found (is its Debian package installed? see README.md)")
    for (name, text, _, _), pcm in zip(todo, decode([t[2] for t in todo], [t[3] for t in todo])):
        res = aligner.align(pcm, text, voice)
        if res is None:
            dropped.append((name, "no alignment"))
            continue
        events, end_ms = res
        durs = [b[0] - a[0] for a, b in zip(events, events[1:] + [(end_ms, "")]) if a[1] != "_"]
        if max(durs) > MAX_PHONE_MS:
            dropped.append((name, f"phone of {max(durs)} ms"))
            continue
        pcms.append(pcm)
        meta.append(dict(name=name, text=text, events=events, end_ms=end_ms, samples=len(pcm)))
    np.savez(path, pcm=np.concatenate(pcms), lengths=np.array([m["samples"] for m in meta]))
    with open(path + ".json", "w", encoding="utf-8") as f:
        json.dump(dict(speaker=spk, voice=voice, prompts=meta, dropped=dropped), f, ensure_ascii=False)
    secs = sum(m["samples"] for m in meta) / 16000
    print(f"  {spk}: {len(meta)} prompts aligned ({secs / 60:.1f} min), {len(dropped)} dropped, "
          f"{time.time() - t0:.0f} s", flush=True)
    return path


def load_speaker(path):
    d = np.load(path)
    pcm, lengths = d["pcm"], d["lengths"]  # read each array once (NpzFile re-reads on every access)
    meta = json.load(open(path + ".json", encoding="utf-8"))
    offs = np.concatenate([[0], np.cumsum(lengths)])
    return [(pcm[offs[i]:offs[i + 1]], p) for i, p in enumerate(meta["prompts"])], meta["voice"]


def noise_floor(pcm):
    """RMS of the quietest 20 ms of a prompt (its recording's noise floor), at least 1 LSB."""
    x = pcm.astype(np.float64)
    n = len(x) // 320
    if n == 0:
        return 1.0
    r = np.sqrt(np.mean(x[:n * 320].reshape(n, 320) ** 2, axis=1))
    return max(float(np.min(r)), 1.0)


def join(prompts, rng, nrng):
    """Prompts -> one utterance (float64 audio at 16 kHz, events [(ms, mnemonic)], speech end ms)."""
    parts, events = [], []
    pos = 0
    floor = np.median([noise_floor(p) for p, _ in prompts])
    for k, (pcm, meta) in enumerate(prompts):
        gap = rng.uniform(0.3, 1.0) if k == 0 else rng.uniform(0.25, 1.2)
        n = int(gap * 16000)
        parts.append(nrng.normal(0, floor, n))
        pos += n
        events.append((pos / 16.0 - gap * 1000, "_"))
        events += [(pos / 16.0 + ms, m) for ms, m in meta["events"]]
        parts.append(pcm.astype(np.float64))
        pos += len(pcm)
        events.append((pos / 16.0, "_"))  # anything after the aligned end is a pause
    tail = int(rng.uniform(0.3, 1.0) * 16000)
    parts.append(nrng.normal(0, floor, tail))
    x = np.concatenate(parts) / 32768.0
    return x, events, len(x) / 16.0


def make_set(speakers, paths, copies, augmented, seed):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    items = []

    def babble(n_samples):
        out = np.zeros(n_samples)
        for _ in range(rng.randint(3, 6)):
            lang = rng.choice(gen_data.TRAIN_LANGS)
            x, _, _ = gen_data.synth_16k(textgen.utterance(lang, rng), lang, rng)
            x = np.tile(x, n_samples // max(len(x), 1) + 1)[:n_samples]
            out += np.roll(x, rng.randrange(n_samples)) / (np.std(x) + 1e-9)
        return out

    for spk in speakers:
        prompts, _ = load_speaker(paths[spk])
        for c in range(copies):
            order = list(range(len(prompts)))
            rng.shuffle(order)
            k = 0
            while k < len(order):
                n = rng.randint(1, 4)
                group = [prompts[j] for j in order[k:k + n]]
                k += n
                x, events, total_ms = join(group, rng, nrng)
                lab = visemes.frame_labels(events, features.num_frames(len(x)), 0.0, total_ms)
                desc = "clean"
                if augmented and rng.random() < 0.9:
                    x, desc = augment.augment(x, nrng, babble)
                elif augmented:
                    x = x * 10 ** (rng.uniform(-30, -6) / 20) / (np.max(np.abs(x)) + 1e-9)
                items.append((features.logmel(x).astype(np.float16), lab.astype(np.int8),
                              features.frame_rms(x).astype(np.float32),
                              dict(speaker=spk, prompts=[m["name"] for _, m in group], aug=desc)))
    return items


def save(path, items):
    feats, labels, rms, meta = zip(*items)
    np.savez(path, feats=np.concatenate(feats), labels=np.concatenate(labels), rms=np.concatenate(rms),
             lengths=np.array([len(l) for l in labels]))
    with open(path + ".json", "w", encoding="utf-8") as f:
        json.dump(list(meta), f, ensure_ascii=False)
    print(f"  {os.path.basename(path)}: {len(items)} utterances, {sum(len(l) for l in labels) / 360000:.2f} h",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--speakers", choices=sorted(TRAIN_SETS), default="asterisk",
                    help="training speakers: asterisk (v2, shipped) or all (the v3 experiment, see README.md)")
    ap.add_argument("--align-only", action="store_true", help="align and cache the speakers, build no set")
    a = ap.parse_args()
    train = TRAIN_SETS[a.speakers]
    real_dir = os.path.join(a.out, "real")
    os.makedirs(real_dir, exist_ok=True)
    paths = {s: align_speaker(s, real_dir) for s in train}
    if a.align_only:
        return
    save(os.path.join(a.out, "real_train.npz"), make_set(train, paths, a.copies, True, 12))
    paths.update({s: align_speaker(s, real_dir) for s in HELDOUT})
    save(os.path.join(a.out, "real_test.npz"), make_set(HELDOUT, paths, 1, False, 11))


if __name__ == "__main__":
    main()
