"""espeak-ng phoneme mnemonics -> Rhubarb Lip Sync's 9 mouth shapes (see README.md).

X rest/silence, A closed (P B M), B slightly open / clenched (most consonants, EE/IH),
C open (EH, AE, schwa), D wide open (AA, AY, AW), E rounded (AO, OW, ER), F puckered (UW, W, ü),
G upper teeth on lower lip (F V), H tongue up (L).
"""
VISEMES = ["X", "A", "B", "C", "D", "E", "F", "G", "H"]
IDX = {v: i for i, v in enumerate(VISEMES)}

_VOWELS = {
    "a": "D", "A": "D", "&": "C", "e": "C", "E": "C", "@": "C", "V": "C", "3": "E",
    "i": "B", "I": "B", "o": "E", "O": "E", "0": "E", "Q": "E", "8": "E", "2": "E", "W": "E",
    "u": "F", "U": "F", "y": "F", "Y": "F", "M": "B", "7": "C", "9": "E", "6": "C",
}
_CONSONANTS = {
    "p": "A", "b": "A", "m": "A", "B": "A",  # B = bilabial fricative
    "f": "G", "v": "G",
    "w": "F",
    "l": "H", "L": "H",
}


def viseme_of(mnemonic):
    """Returns a viseme letter, or None for events that are not phonemes (language switches)."""
    if not mnemonic or mnemonic.startswith("("):
        return None
    if mnemonic[0] == "_":
        return "X"
    c = mnemonic[0]
    if c in ("'", ",", "%", "=", "?") and len(mnemonic) > 1:  # stress marks, glottal onset '?a'
        c = mnemonic[1]
    if c in _CONSONANTS:
        return _CONSONANTS[c]
    if c in _VOWELS:
        return _VOWELS[c]
    return "B"  # t d k g s z S Z T D n N r R h x j tS dZ ? ; ...


def frame_labels(events, n_frames, offset_ms, audio_ms):
    """events: [(start_ms, mnemonic)] relative to the speech start, which is placed at offset_ms.
    Frame t (interval [10t, 10t+10) ms) gets the viseme active at its centre."""
    import numpy as np
    labels = np.zeros(n_frames, np.int64)  # X
    segs = [(ms, viseme_of(m)) for ms, m in events]
    segs = [(ms, v) for ms, v in segs if v is not None]
    segs.sort(key=lambda s: s[0])
    for i, (start, v) in enumerate(segs):
        end = segs[i + 1][0] if i + 1 < len(segs) else audio_ms
        if end <= start:
            continue
        a = int(np.ceil((offset_ms + start - 5) / 10.0))
        b = int(np.ceil((offset_ms + end - 5) / 10.0))
        labels[max(a, 0):min(b, n_frames)] = IDX[v]
    return labels
