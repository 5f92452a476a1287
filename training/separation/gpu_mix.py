"""Training mixtures made on the device (GPU, or the CPU for tests) from a pack (packio.py), in batches, with torch only.

One call of `GpuMixer.batch(B, seconds)` returns `mix = speech + amb` exactly (float32 [B, N]), the two stems, the SNR
each example was mixed at and which augmentations it got. What an example goes through:

  speech    utterances back to back (first onset within 1/3 s, pauses 0.05–0.7 s, each utterance ±6 dB around its
            RMS), played at a random rate 0.88–1.12 (70 %: pitch and tempo together, a new voice of the same speaker)
  room      40 % of the speech (15 % of the ambience) through a synthetic room: exponentially decaying filtered noise,
            RT60 0.15–0.8 s, 2–6 early reflections at 2–25 ms, tail −12…+4 dB against the direct sound (near to distant
            talker); the target is the reverberant speech (the voice as recorded, as in mixing.py)
  ambience  20 % noise (generated here: coloured 1/f^α, mains hum, steady / gliding / gated tones, slow modulation; or a
            stored mixing.synth_noise clip), 20 % sung (a cappella, or 70 % of the time the lead over music or a song
            at −6…+9 dB), otherwise music 50 % / song 20 % / effects 30 % (short clips repeated with gaps 0–1 s), at
            rate 0.94–1.06; 30 % get a second layer at −15…0 dB; 30 % of music and songs are "mastered" first (driven
            3–12 dB into a peak limiter)
  SNR       uniform −5…+10 dB (speech RMS over ambience RMS, before what follows)
  EQ        50 %: a smooth random curve (tilt ±3 dB/octave, three ±6 dB bumps 0.2–1 octave wide), 25 % a high-pass at
            60–300 Hz, 15 % a low-pass at 3.4–7 kHz; applied to both stems alike
  codec     20 %: a measured codec's gain per bin (pack: codec_response) and its dropped bins (codec_hole_prob, by band
            and by level under the frame's loudest bin), drawn per bin of the mixture and applied to both stems alike
  limiter   30 %: the mixture driven 0–12 dB into a look-ahead peak limiter (the same gain on both stems), then a peak
            of −2…−0.1 dBFS; otherwise a peak of −30…−1 dBFS
  no speech `silent` examples per batch (default 1/8) are ambience alone (half of them sung); speech is zeros there.

Everything is drawn from a torch.Generator on the device (`seed`), so a mixer with the same seed and device repeats
its batches. `MixConfig` holds the probabilities (a test sets them to 0 or 1).
"""
import math
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

import packio

SR = packio.SR


@dataclass
class MixConfig:
    p_speech_rate: float = 0.7
    speech_rate: tuple = (0.88, 1.12)
    amb_rate: tuple = (0.94, 1.06)
    p_room_speech: float = 0.4
    p_room_amb: float = 0.15
    p_noise: float = 0.2
    p_stored_noise: float = 0.5
    p_sung: float = 0.2
    p_sung_bed: float = 0.7
    p_second: float = 0.3
    p_master: float = 0.3
    snr: tuple = (-5.0, 10.0)
    p_eq: float = 0.5
    p_highpass: float = 0.25
    p_lowpass: float = 0.15
    p_codec: float = 0.2
    p_limiter: float = 0.3
    silent_fraction: float = 0.125


class Pool:
    """One pool of one split on the device: μ-law codes of all clips back to back."""

    def __init__(self, pack, name, device):
        self.name = name
        self.codes = torch.from_numpy(pack[f"{name}_audio"].astype(np.int64)).to(device)
        off = pack[f"{name}_offsets"]
        self.start = torch.from_numpy(off[:-1].astype(np.int64)).to(device)
        self.lens = torch.from_numpy(np.diff(off).astype(np.int64)).to(device)
        self.rms = torch.from_numpy(pack[f"{name}_rms"].astype(np.float32)).to(device).clamp_min(1e-4)
        self.cat = torch.from_numpy(pack[f"{name}_cat"].astype(np.int64)).to(device)
        self.catnames = [str(c) for c in pack[f"{name}_catnames"]]
        self.n = len(self.lens)

    def ids(self, *cats):
        if not cats:
            return torch.arange(self.n, device=self.lens.device)
        codes = [self.catnames.index(c) for c in cats if c in self.catnames]
        return torch.nonzero(torch.isin(self.cat, torch.tensor(codes, device=self.cat.device))).flatten()


def rms(x, eps=1e-8):
    return x.pow(2).mean(-1, keepdim=True).add(eps).sqrt()


class GpuMixer:
    def __init__(self, pack, split, device, seed=0, config=None):
        self.device = torch.device(device)
        self.cfg = config or MixConfig()
        self.g = torch.Generator(device=self.device)
        self.g.manual_seed(seed)
        self.lut = torch.from_numpy(packio.mulaw_table()).to(self.device)
        self.pools = {p: Pool(pack, f"{p}_{split}", self.device) for p in packio.POOLS}
        self.codec_names = [str(c) for c in pack.get("codec_names", [])]
        self.codec_response = torch.from_numpy(pack["codec_response"]).to(self.device) if self.codec_names else None
        self.codec_holes = torch.from_numpy(pack["codec_hole_prob"]).to(self.device) if self.codec_names else None
        self.window = torch.hann_window(512, periodic=True, device=self.device).sqrt()
        self.freqs = torch.fft.rfftfreq(512, 1 / SR).to(self.device)

    # --- random numbers on the device
    def u(self, *shape, lo=0.0, hi=1.0):
        return torch.rand(*shape, generator=self.g, device=self.device) * (hi - lo) + lo

    def n(self, *shape):
        return torch.randn(*shape, generator=self.g, device=self.device)

    def chance(self, p, b):
        return self.u(b) < p

    def pick(self, ids, *shape):
        return ids[torch.randint(len(ids), shape, generator=self.g, device=self.device)]

    # --- segments
    def place(self, pool, b, length, ids, slots, first_max, gap, gain_db, rate, repeat=False):
        """Clips of `pool` placed one after another (with gaps) in [b, length]: slot j starts where j−1 ended plus a
        gap; each read at `rate` (linear interpolation) and scaled to gain_db around its RMS; a clip longer than the
        room left starts at a random offset (only the first slot). `repeat`: every slot plays the first slot's clip."""
        dev = self.device
        if len(ids) == 0:
            return torch.zeros(b, length, device=dev)
        clip = self.pick(ids, b, slots)
        if repeat:
            clip = clip[:, :1].expand(b, slots)
        lens = self.pool_lens(pool, clip).double()
        out_len = torch.floor((lens - 1) / rate[:, None])
        gaps = torch.floor(self.u(b, slots, lo=gap[0], hi=gap[1]) * SR).double()
        long_first = lens[:, 0] >= rate.double() * length
        first = torch.where(long_first, torch.zeros(b, device=dev, dtype=torch.float64),
                            torch.floor(self.u(b) * (first_max + 1)).double())
        pos = first[:, None] + torch.cumsum(out_len + gaps, 1) - (out_len + gaps)
        # first slot: random offset into a clip longer than what is left of the segment
        spare = (lens[:, 0] - 1 - rate.double() * (length - first)).clamp_min(0)
        off0 = self.u(b).double() * spare
        gain = 10 ** (self.u(b, slots, lo=gain_db[0], hi=gain_db[1]) / 20) / pool.rms[clip]
        t = torch.arange(length, device=dev, dtype=torch.float64)[None]
        out = torch.zeros(b, length, device=dev)
        for j in range(slots):
            u = (t - pos[:, j:j + 1]) * rate.double()[:, None] + (off0[:, None] if j == 0 else 0.0)
            valid = (t >= pos[:, j:j + 1]) & (u <= lens[:, j:j + 1] - 1)
            u = torch.minimum(u.clamp_min(0), lens[:, j:j + 1] - 1)
            i0 = torch.floor(u)
            frac = (u - i0).float()
            i0 = i0.long()
            i1 = torch.minimum(i0 + 1, lens[:, j:j + 1].long() - 1)
            base = pool.start[clip[:, j]][:, None]
            x = self.lut[pool.codes[base + i0]] * (1 - frac) + self.lut[pool.codes[base + i1]] * frac
            out += torch.where(valid, x * gain[:, j:j + 1], torch.zeros((), device=dev))
        return out

    @staticmethod
    def pool_lens(pool, clip):
        return pool.lens[clip]

    def rates(self, b, rng, p=1.0):
        r = self.u(b, lo=rng[0], hi=rng[1])
        return torch.where(self.chance(p, b), r, torch.ones_like(r))

    def speech(self, b, length):
        c = self.cfg
        p = self.pools["speech"]
        return self.place(p, b, length, p.ids(), 6, SR // 3, (0.05, 0.7), (-6, 6),
                          self.rates(b, c.speech_rate, c.p_speech_rate))

    def clip_segment(self, name, b, length):
        p = self.pools[name]
        short = name == "sfx"
        return self.place(p, b, length, p.ids(), 8 if short else 2, SR, (0.0, 1.0), (-6, 0) if short else (0, 0),
                          self.rates(b, self.cfg.amb_rate), repeat=short)

    def synth_noise(self, b, length):
        """Coloured noise (50 %), mains hum (15 %) or tones (35 %), 40 % slowly modulated; RMS 1."""
        dev = self.device
        t = torch.arange(length, device=dev) / SR
        white = self.n(b, length)
        spec = torch.fft.rfft(white)
        f = torch.fft.rfftfreq(length, 1 / SR).to(dev).clamp_min(20.0)
        alpha = self.u(b, 1, lo=-0.5, hi=2.2)
        coloured = torch.fft.irfft(spec * f[None] ** (-alpha / 2), n=length)
        f0 = (50.0 + 10.0 * self.chance(0.5, b).float())[:, None, None]
        k = torch.arange(1, 8, device=dev)[None, :, None]
        hum = (self.u(b, 7, 1, lo=0.1, hi=1.0) * torch.sin(2 * math.pi * f0 * k * t + self.u(b, 7, 1, hi=6.3))).sum(1)
        hum = hum / rms(hum) + 0.05 * white
        nt = 4
        freq = torch.exp(self.u(b, nt, 1, lo=math.log(80), hi=math.log(7000)))
        glide = self.chance(0.3, b * nt).view(b, nt, 1).float() * self.u(b, nt, 1, lo=-0.3, hi=0.3)
        dur = length / SR
        phase = 2 * math.pi * freq * (t + glide * t ** 2 / (2 * dur)) + self.u(b, nt, 1, hi=6.3)
        on = (torch.arange(nt, device=dev)[None, :] < torch.randint(1, nt + 1, (b, 1), generator=self.g, device=dev))
        tones = (self.u(b, nt, 1, lo=0.2, hi=1.0) * on[..., None] * torch.sin(phase)).sum(1)
        period = self.u(b, 1, lo=0.2, hi=2.0)
        gated = self.chance(0.5, b)[:, None]
        gate = ((t % period) < period * self.u(b, 1, lo=0.3, hi=0.8)).float()
        tones = torch.where(gated, tones * gate, tones)
        tones = tones / rms(tones) + 0.01 * white
        r = self.u(b, 1)
        x = torch.where(r < 0.5, coloured / rms(coloured), torch.where(r < 0.65, hum, tones / rms(tones)))
        am = 1 + self.u(b, 1, lo=0.2, hi=0.9) * torch.sin(2 * math.pi * self.u(b, 1, lo=0.1, hi=2.0) * t)
        x = torch.where(self.chance(0.4, b)[:, None], x * am, x)
        return x / rms(x)

    def noise(self, b, length):
        stored = self.clip_segment("noise", b, length)
        return torch.where(self.chance(self.cfg.p_stored_noise, b)[:, None], stored / rms(stored),
                           self.synth_noise(b, length))

    def master(self, x):
        """Loud mastering: driven 3–12 dB into a peak limiter (ceiling at the input's former peak)."""
        peak = x.abs().amax(-1, keepdim=True) + 1e-8
        y = x / peak * 10 ** (self.u(x.shape[0], 1, lo=3, hi=12) / 20)
        return limit(y, 1.0) * peak

    def sung(self, b, length):
        v = self.clip_segment("sung", b, length)
        bed = self.bed(b, length)
        over = v / rms(v) * 10 ** (self.u(b, 1, lo=-6, hi=9) / 20) + bed / rms(bed)
        return torch.where(self.chance(self.cfg.p_sung_bed, b)[:, None], over, v)

    def bed(self, b, length):
        m, s = self.clip_segment("music", b, length), self.clip_segment("song", b, length)
        x = torch.where(self.chance(0.6, b)[:, None], m, s)
        return torch.where(self.chance(self.cfg.p_master, b)[:, None], self.master(x), x)

    def clip_ambience(self, b, length):
        r = self.u(b, 1)
        bed = self.bed(b, length)
        sfx = self.clip_segment("sfx", b, length)
        return torch.where(r < 0.7, bed, sfx)

    def ambience(self, b, length):
        c = self.cfg
        r = self.u(b, 1)
        a = torch.where(r < c.p_noise, self.noise(b, length),
                        torch.where(r < c.p_noise + c.p_sung, self.sung(b, length), self.clip_ambience(b, length)))
        a = a / rms(a)
        second = torch.where(self.chance(0.7, b)[:, None], self.clip_ambience(b, length), self.noise(b, length))
        layered = a + second / rms(second) * 10 ** (self.u(b, 1, lo=-15, hi=0) / 20)
        return torch.where(self.chance(c.p_second, b)[:, None], layered, a)

    # --- rooms
    def rirs(self, b, n=int(0.9 * SR)):
        dev = self.device
        t = torch.arange(n, device=dev) / SR
        rt60 = self.u(b, 1, lo=0.15, hi=0.8)
        tail = self.n(b, n) * torch.exp(-6.9 * t / rt60)
        a = self.u(b, 1, lo=0.0, hi=0.7)  # one-pole low-pass: darker tails
        w = 2 * math.pi * torch.fft.rfftfreq(n, 1 / SR).to(dev) / SR
        lp = 1 / (1 - a * torch.exp(-1j * w))
        tail = torch.fft.irfft(torch.fft.rfft(tail) * lp, n=n)
        tail = tail * (t >= 0.0025)
        tail = tail / rms(tail) / math.sqrt(n) * 10 ** (self.u(b, 1, lo=-12, hi=4) / 20)  # energy vs the direct path
        h = tail
        taps = (self.u(b, 6, lo=0.002, hi=0.025) * SR).long()
        amp = self.u(b, 6, lo=0.1, hi=0.6) * (2 * self.chance(0.5, b * 6).view(b, 6).float() - 1)
        amp = amp * (torch.arange(6, device=dev)[None] < torch.randint(2, 7, (b, 1), generator=self.g, device=dev))
        h = h.scatter_add(1, taps, amp)
        h[:, 0] = 1.0
        return h

    def reverb(self, x, p):
        b, length = x.shape
        h = self.rirs(b)
        nfft = 1 << (length + h.shape[1] - 1).bit_length()
        y = torch.fft.irfft(torch.fft.rfft(x, nfft) * torch.fft.rfft(h, nfft), nfft)[:, :length]
        return torch.where(self.chance(p, b)[:, None], y, x)

    # --- spectral shaping (EQ, codec) on both stems alike
    def stft(self, x):
        return torch.stft(x, 512, 128, window=self.window, center=True, return_complex=True)

    def istft(self, X, length):
        return torch.istft(X, 512, 128, window=self.window, center=True, length=length)

    def shaping(self, s, a):
        c = self.cfg
        b, length = s.shape
        f = self.freqs.clamp_min(30.0)[None]
        lf = torch.log2(f / 1000)
        db = self.u(b, 1, lo=-3, hi=3) * lf
        for _ in range(3):
            fc = torch.log2(torch.exp(self.u(b, 1, lo=math.log(100), hi=math.log(7000))) / 1000)
            db = db + self.u(b, 1, lo=-6, hi=6) * torch.exp(-0.5 * ((lf - fc) / self.u(b, 1, lo=0.2, hi=1.0)) ** 2)
        eq, hpo, lpo = self.chance(c.p_eq, b)[:, None], self.chance(c.p_highpass, b)[:, None], self.chance(c.p_lowpass, b)[:, None]
        g = torch.where(eq, 10 ** (db / 20), torch.ones_like(db))
        hp = self.u(b, 1, lo=60, hi=300)
        g = torch.where(hpo, g / torch.sqrt(1 + (hp / f) ** 4), g)
        lp = self.u(b, 1, lo=3400, hi=7000)
        g = torch.where(lpo, g / torch.sqrt(1 + (f / lp) ** 8), g)
        S, A = self.stft(s), self.stft(a)
        G = g[:, :, None].expand(b, g.shape[1], S.shape[-1])
        coded = self.chance(c.p_codec, b) if self.codec_response is not None else torch.zeros(b, dtype=torch.bool,
                                                                                             device=self.device)
        if self.codec_response is not None:
            k = torch.randint(len(self.codec_names), (b,), generator=self.g, device=self.device)
            M = (S + A).abs()
            rel = 20 * torch.log10(M / (M.amax(1, keepdim=True) + 1e-12) + 1e-12)
            bucket = torch.clamp(torch.floor(-rel / 10), 0, self.codec_holes.shape[-1] - 1).long()
            quarter = torch.clamp(torch.arange(M.shape[1], device=self.device) // 64, max=3)[None, :, None]
            prob = self.codec_holes[k][torch.arange(b, device=self.device)[:, None, None], quarter, bucket]
            lost = self.u(*M.shape) < prob
            Gc = self.codec_response[k][:, :, None] * (1 - 0.97 * lost.float())
            G = torch.where(coded[:, None, None], G * Gc, G)
        shaped = eq[:, 0] | hpo[:, 0] | lpo[:, 0] | coded
        s2, a2 = self.istft(S * G, length), self.istft(A * G, length)
        return (torch.where(shaped[:, None], s2, s), torch.where(shaped[:, None], a2, a), coded)

    # --- a batch
    def batch(self, b, seconds=4.0):
        c = self.cfg
        length = int(seconds * SR)
        n_silent = int(round(b * c.silent_fraction))
        n_sp = b - n_silent
        s = self.reverb(self.speech(n_sp, length), c.p_room_speech) if n_sp else torch.zeros(0, length, device=self.device)
        a = self.reverb(self.ambience(n_sp, length), c.p_room_amb) if n_sp else torch.zeros(0, length, device=self.device)
        snr = self.u(n_sp, lo=c.snr[0], hi=c.snr[1])
        a = a * rms(s) / rms(a) * 10 ** (-snr[:, None] / 20)
        if n_silent:
            quiet = torch.where(self.chance(0.5, n_silent)[:, None], self.sung(n_silent, length),
                                self.ambience(n_silent, length))
            s = torch.cat([s, torch.zeros(n_silent, length, device=self.device)])
            a = torch.cat([a, quiet])
            snr = torch.cat([snr, torch.full((n_silent,), float("nan"), device=self.device)])
        s, a, coded = self.shaping(s, a)
        # level: a peak limiter on some, then the peak level
        peak = (s + a).abs().amax(-1, keepdim=True) + 1e-8
        s, a = s / peak, a / peak
        limited = self.chance(c.p_limiter, b)
        drive = torch.where(limited, 10 ** (self.u(b, lo=0, hi=12) / 20), torch.ones(b, device=self.device))[:, None]
        s, a = s * drive, a * drive
        g = limiter_gain(s + a, 1.0)
        g = torch.where(limited[:, None], g, torch.ones_like(g))
        s, a = s * g, a * g
        level = torch.where(limited, self.u(b, lo=-2, hi=-0.1), self.u(b, lo=-30, hi=-1))
        peak = (s + a).abs().amax(-1, keepdim=True) + 1e-8
        k = torch.where(limited[:, None], 10 ** (level[:, None] / 20), 10 ** (level[:, None] / 20) / peak)
        s, a = s * k, a * k
        has = torch.arange(b, device=self.device) < n_sp
        return {"mix": s + a, "speech": s, "amb": a, "snr_db": snr, "has_speech": has, "coded": coded,
                "limited": limited}


def limiter_gain(x, ceiling, look=48, smooth=33):
    """Gain ≤ 1 per sample such that |gain · x| ≤ ceiling: the peak of |x| over ±look samples (3 ms at 16 kHz),
    averaged over `smooth` (≤ 2·look + 1) samples, so every sample's envelope is at least its own magnitude."""
    env = F.max_pool1d(x.abs()[:, None], 2 * look + 1, 1, look)
    env = F.avg_pool1d(env, smooth, 1, smooth // 2, count_include_pad=False)[:, 0]
    return torch.clamp(ceiling / (env + 1e-12), max=1.0)


def limit(x, ceiling):
    return x * limiter_gain(x, ceiling)
