"""Forced alignment of real recordings whose text is known -> phoneme timings -> viseme labels.

Method (see README.md, "Real speech"): espeak-ng gives the phoneme sequence of the transcript in
the recording's language (the same mnemonics, and so the same viseme rule, as the synthetic data);
each phoneme is mapped to the nearest phone of pocketsphinx's US-English acoustic model (ARPAbet);
pocketsphinx then decodes the audio against a grammar that allows exactly that phone sequence,
one "word" per phone, with optional silence between any two (fillers). The segmentation it
returns gives every phone's start/end frame (10 ms); silence and fillers are rest (X).

`align(pcm16k_int16, text, voice)` -> (events [(start_ms, mnemonic)], end_ms) or None when the
decoder did not reach the end of the grammar.
"""
import os
import tempfile

import numpy as np

import espeak_synth

HMM = "/usr/share/pocketsphinx/model/en-us/en-us"

# espeak-ng mnemonics (multi-symbol ones first) -> ARPAbet phones of the en-us acoustic model
_MULTI = {
    "aI": ["AY"], "aU": ["AW"], "eI": ["EY"], "oU": ["OW"], "OI": ["OY"], "@U": ["OW"], "aa": ["AA"],
    "i@": ["IY", "AH"], "e@": ["EH", "R"], "U@": ["UH", "R"], "3:": ["ER"], "tS": ["CH"], "dZ": ["JH"],
    "ts": ["T", "S"], "dz": ["D", "Z"], "n^": ["N", "Y"], "l^": ["L", "Y"], "r-": ["R"], "@-": ["AH"],
}
_SINGLE = {
    "a": "AA", "A": "AA", "&": "AE", "e": "EY", "E": "EH", "@": "AH", "V": "AH", "3": "ER", "i": "IY",
    "I": "IH", "o": "OW", "O": "AO", "0": "AA", "Q": "AA", "u": "UW", "U": "UH", "y": "UW", "Y": "UH",
    "8": "UH", "2": "ER", "9": "ER", "W": "ER", "M": "UH", "7": "AH", "6": "AH", "1": "IH",
    "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V", "s": "S", "z": "Z",
    "S": "SH", "Z": "ZH", "T": "TH", "D": "DH", "h": "HH", "x": "HH", "X": "HH", "C": "HH", "n": "N",
    "N": "NG", "m": "M", "l": "L", "L": "L", "r": "R", "R": "R", "j": "Y", "w": "W", "c": "K", "J": "G",
    "B": "B", "G": "G", "*": "R",
}


def arpabet(mnemonic, lang="en"):
    """ARPAbet proxy phones of one espeak phoneme mnemonic ([] for pauses and modifiers)."""
    m = mnemonic.lstrip("'\",%=")
    if not m or m[0] in "_;?(|":
        return []
    if lang.startswith("en") and m[0] == "a" and m[:2] not in _MULTI:
        return ["AE"]
    for k, v in _MULTI.items():
        if m.startswith(k):
            return v
    p = _SINGLE.get(m[0])
    return [p] if p else []


def phonemes(text, voice):
    """espeak-ng's phoneme mnemonics for `text` (pauses dropped), in order."""
    _, events = espeak_synth.synth(text, voice)
    return [m for _, m in events if arpabet(m, voice)]


MIN_PAUSE_MS = 150
_STOPS = {"P", "B", "T", "D", "K", "G", "CH", "JH"}


def _is_filler(w):
    return w == "sil" or w[0] in "<[+"


class Aligner:
    def __init__(self):
        from pocketsphinx import Decoder
        self._Decoder = Decoder
        self._dir = tempfile.mkdtemp(prefix="lipsync-align-")
        phones = sorted(set(_SINGLE.values()) | {p for v in _MULTI.values() for p in v} | {"AE"})
        self._dict = os.path.join(self._dir, "phones.dict")
        with open(self._dict, "w") as f:
            for p in phones:
                f.write(f"{p.lower()} {p}\n")
            f.write("sil SIL\n")
        cfg = Decoder.default_config()
        cfg.set_string("-hmm", HMM)
        cfg.set_string("-dict", self._dict)
        cfg.set_string("-logfn", "/dev/null")
        cfg.set_float("-beam", 1e-80)
        cfg.set_float("-wbeam", 1e-60)
        cfg.set_float("-pbeam", 1e-80)
        cfg.set_float("-samprate", 16000)
        self._cfg = cfg
        self._decoder = Decoder(cfg)

    def align(self, pcm, text, voice):
        mnems = phonemes(text, voice)
        words, owner = [], []
        for i, m in enumerate(mnems):
            for p in arpabet(m, voice):
                words.append(p.lower())
                owner.append(i)
        if not words:
            return None
        d = self._decoder
        body = " ".join(f"[ sil ] {w}" for w in words) + " [ sil ]"
        d.set_jsgf_string("u", "#JSGF V1.0;\ngrammar u;\npublic <s> = " + body + " ;\n")
        d.set_search("u")
        d.start_utt()
        d.process_raw(np.ascontiguousarray(pcm, dtype=np.int16).tobytes(), False, True)
        d.end_utt()
        if d.hyp() is None:
            return None
        segs = [(s.word, s.start_frame, s.end_frame) for s in d.seg() if s.word != "(NULL)"]
        hyp_words = [w for w, _, _ in segs if not _is_filler(w)]
        if hyp_words != words:
            return None
        # phone segments (start_ms, end_ms, arpabet, owner index) and pauses (owner None)
        units, k = [], 0
        for w, start, end in segs:
            if _is_filler(w):
                units.append([start * 10, (end + 1) * 10, "SIL", None])
            else:
                units.append([start * 10, (end + 1) * 10, w.upper(), owner[k]])
                k += 1
        # A short pause inside the utterance is the closure of a stop (lips/tongue closed, not
        # at rest) or a hesitation between words: it goes to the next phone when that is a stop,
        # else to the previous one. Pauses at the ends and long ones stay rest.
        merged = []
        for j, u in enumerate(units):
            internal = 0 < j < len(units) - 1
            if u[3] is None and internal and u[1] - u[0] < MIN_PAUSE_MS:
                nxt = units[j + 1]
                if nxt[3] is not None and nxt[2] in _STOPS:
                    nxt[0] = u[0]
                elif merged:
                    merged[-1][1] = u[1]
                continue
            merged.append(u)
        events = []
        for j, (start, end, p, i) in enumerate(merged):
            if i is None:
                events.append((start, "_"))
            elif j == 0 or merged[j - 1][3] != i:  # first ARPAbet phone of this espeak phoneme
                events.append((start, mnems[i]))
        return events, merged[-1][1]

if __name__ == "__main__":
    import subprocess
    import sys
    path, text, voice = sys.argv[1], sys.argv[2], sys.argv[3]
    raw = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "g722", "-i", path, "-ar", "16000", "-ac", "1",
                          "-f", "s16le", "-"], capture_output=True, check=True).stdout
    pcm = np.frombuffer(raw, np.int16)
    print(len(pcm) / 16000, Aligner().align(pcm, text, voice))
