"""Synthesis with phoneme timings through libespeak-ng (ctypes).

`synth(text, voice, rate, pitch, pitch_range)` returns (samples int16 @ 22050 Hz, events) where
events is a list of (start_ms, phoneme_mnemonic) from espeakEVENT_PHONEME. A phoneme lasts until
the next event (or the end of audio).
"""
import ctypes as C
import numpy as np

AUDIO_OUTPUT_SYNCHRONOUS = 2
espeakINITIALIZE_PHONEME_EVENTS = 0x0001
espeakEVENT_LIST_TERMINATED = 0
espeakEVENT_PHONEME = 7
espeakEVENT_END = 5
espeakRATE, espeakVOLUME, espeakPITCH, espeakRANGE = 1, 2, 3, 4
POS_CHARACTER = 1
espeakCHARS_UTF8 = 1


class _Id(C.Union):
    _fields_ = [("number", C.c_int), ("name", C.c_char_p), ("string", C.c_char * 8)]


class EspeakEvent(C.Structure):
    _fields_ = [
        ("type", C.c_int),
        ("unique_identifier", C.c_uint),
        ("text_position", C.c_int),
        ("length", C.c_int),
        ("audio_position", C.c_int),
        ("sample", C.c_int),
        ("user_data", C.c_void_p),
        ("id", _Id),
    ]


SYNTH_CB = C.CFUNCTYPE(C.c_int, C.POINTER(C.c_short), C.c_int, C.POINTER(EspeakEvent))

_lib = None
_state = {"chunks": [], "events": []}
SAMPLE_RATE = None


def _callback(wav, numsamples, events):
    if numsamples > 0:
        _state["chunks"].append(np.ctypeslib.as_array(wav, shape=(numsamples,)).copy())
    i = 0
    while True:
        ev = events[i]
        if ev.type == espeakEVENT_LIST_TERMINATED:
            break
        if ev.type == espeakEVENT_PHONEME:
            raw = bytes(ev.id.string).split(b"\0", 1)[0].decode("latin-1")
            _state["events"].append((ev.audio_position, raw))
        i += 1
    return 0


_cb_ref = SYNTH_CB(_callback)


def init():
    global _lib, SAMPLE_RATE
    if _lib is not None:
        return
    _lib = C.CDLL("libespeak-ng.so.1")
    _lib.espeak_Initialize.argtypes = [C.c_int, C.c_int, C.c_char_p, C.c_int]
    _lib.espeak_SetVoiceByName.argtypes = [C.c_char_p]
    _lib.espeak_SetParameter.argtypes = [C.c_int, C.c_int, C.c_int]
    _lib.espeak_Synth.argtypes = [C.c_void_p, C.c_size_t, C.c_uint, C.c_int, C.c_uint, C.c_uint,
                                  C.POINTER(C.c_uint), C.c_void_p]
    SAMPLE_RATE = _lib.espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, None, espeakINITIALIZE_PHONEME_EVENTS)
    _lib.espeak_SetSynthCallback(_cb_ref)


def synth(text, voice="en", rate=175, pitch=50, pitch_range=50):
    init()
    if _lib.espeak_SetVoiceByName(voice.encode()) != 0:
        raise ValueError("unknown voice " + voice)
    _lib.espeak_SetParameter(espeakRATE, int(rate), 0)
    _lib.espeak_SetParameter(espeakPITCH, int(pitch), 0)
    _lib.espeak_SetParameter(espeakRANGE, int(pitch_range), 0)
    _state["chunks"], _state["events"] = [], []
    buf = text.encode("utf-8") + b"\0"
    _lib.espeak_Synth(buf, len(buf), 0, POS_CHARACTER, 0, espeakCHARS_UTF8, None, None)
    _lib.espeak_Synchronize()
    audio = np.concatenate(_state["chunks"]) if _state["chunks"] else np.zeros(0, np.int16)
    return audio, list(_state["events"])


if __name__ == "__main__":
    import sys
    a, ev = synth(sys.argv[1] if len(sys.argv) > 1 else "papa mama, hello world", sys.argv[2] if len(sys.argv) > 2 else "en")
    print(SAMPLE_RATE, len(a) / SAMPLE_RATE, ev)
