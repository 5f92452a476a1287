"""Tests of the GPU training pack (pack.py, packio.py), the device mixer (gpu_mix.py) and the held-out evaluation of
train_gpu.py, on a small synthetic pack and on the CPU (no data packages, ffmpeg or GPU needed; numpy and torch are):

    cd training/separation && /usr/bin/python3 -m unittest test_pack_mix -v      # ~10 s

Not part of `npm test` (CI has no torch).
"""
import math
import os
import sys
import tempfile
import unittest

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_mix  # noqa: E402
import pack  # noqa: E402
import packio  # noqa: E402

SR = packio.SR


def tone(rng, seconds, f0):
    t = np.arange(int(seconds * SR)) / SR
    env = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(1, 4) * t)
    return (0.6 * env * np.sin(2 * np.pi * f0 * t) + 0.05 * rng.standard_normal(len(t))).astype(np.float32)


def synthetic_pack(path, seed=0):
    """Every pool and split with a few clips from a few sources, a tiny held-out set and made-up codec tables."""
    rng = np.random.default_rng(seed)
    arrays = {}
    cats = {"speech": ["real", "tts"], "music": ["music"], "song": ["song"], "sfx": ["sfx"], "sung": ["singing"],
            "noise": ["noise"]}
    for pool in packio.POOLS:
        for split in packio.SPLITS:
            clips = []
            for i in range(5):
                seconds = 0.4 if pool == "sfx" else (1.5 if pool == "speech" else 5.0)
                clips.append((tone(rng, seconds, rng.uniform(100, 3000)), cats[pool][i % len(cats[pool])],
                              f"{pool}:{split}:src{i % 3}"))
            a, _ = pack.pool_arrays(f"{pool}_{split}", clips)
            arrays.update(a)
    L = 2 * SR
    speech = [tone(rng, 2, 200 + 50 * i) for i in range(3)]
    amb = [rng.standard_normal(L).astype(np.float32) * 0.1 for _ in range(3)]
    s_codes, s_scale = pack.rows(speech)
    a_codes, a_scale = pack.rows(amb)
    c_codes, c_scale = pack.rows([speech[0] * 0.5 + amb[0] * 0.2])
    arrays.update({
        "eval_speech": packio.delta(s_codes, axis=1), "eval_amb": packio.delta(a_codes, axis=1),
        "eval_coded": packio.delta(c_codes, axis=1), "eval_coded_scale": c_scale,
        "eval_items": np.array([[0, 0, -1], [1, 1, -1], [2, 2, -1], [0, 0, 0], [-1, 1, -1]], np.int32),
        "eval_gain": np.array([[1, 1], [1, 0.5], [0.5, 1], [1, 1], [0, 1]], np.float32),
        "eval_snr": np.array([0, 5, -5, 0, np.nan], np.float32),
        "eval_label": np.array(["music@0dB/real", "noise@5dB/tts", "sfx@-5dB/real", "music@0dB/real+codec:mp3",
                                "nospeech/song"]),
        "codec_names": np.array(["a", "b"]),
        "codec_response": np.stack([np.linspace(1, 0.3, 257), np.ones(257)]).astype(np.float32),
        "codec_hole_prob": np.full((2, 4, 9), 0.2, np.float32),
    })
    packio.save(path, arrays, {"version": 1, "eval_seconds": 2})
    return arrays, speech, amb


class PackTest(unittest.TestCase):
    def test_mulaw_and_delta(self):
        x = np.linspace(-1, 1, 10001).astype(np.float32)
        c = packio.mulaw_encode(x)
        self.assertEqual(packio.mulaw_encode(np.zeros(3))[0], 127)
        self.assertEqual(packio.mulaw_decode(np.array([127], np.uint8))[0], 0.0)
        y = packio.mulaw_decode(c)
        self.assertLess(np.max(np.abs(y - x) / (np.abs(x) + 0.01)), 0.05)  # relative error of μ-law
        rng = np.random.default_rng(1)
        s = tone(rng, 1, 440)
        err = packio.mulaw_decode(packio.mulaw_encode(s)) - s
        self.assertGreater(10 * np.log10(np.sum(s ** 2) / np.sum(err ** 2)), 30)
        np.testing.assert_array_equal(packio.undelta(packio.delta(c)), c)
        m = rng.integers(0, 255, (4, 50)).astype(np.uint8)
        np.testing.assert_array_equal(packio.undelta(packio.delta(m, axis=1), axis=1), m)

    def test_round_trip(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pack.npz")
            arrays, speech, _ = synthetic_pack(path)
            p = packio.load(path)
            self.assertEqual(p["meta"]["version"], 1)
            for pool in packio.POOLS:
                for split in packio.SPLITS:
                    k = f"{pool}_{split}"
                    np.testing.assert_array_equal(p[k + "_audio"], packio.undelta(arrays[k + "_audio"]))
                    self.assertEqual(p[k + "_offsets"][-1], len(p[k + "_audio"]))
                    self.assertEqual(len(p[k + "_sources"]), 3)
                    clip = packio.mulaw_decode(p[k + "_audio"][p[k + "_offsets"][0]:p[k + "_offsets"][1]])
                    self.assertAlmostEqual(float(np.max(np.abs(clip))), 0.99, delta=0.05)  # peak-normalised (μ-law
                    # steps are ~4 % near full scale)
                    self.assertAlmostEqual(float(np.sqrt(np.mean(clip ** 2))), float(p[k + "_rms"][0]), places=5)
            # evaluation rows give the stems back (× their scale) within μ-law error
            S = packio.mulaw_decode(p["eval_speech"])
            _, scale = pack.rows(speech)
            err = S[1] * scale[1] - speech[1]
            self.assertGreater(10 * np.log10(np.sum(speech[1] ** 2) / np.sum(err ** 2)), 30)

    def test_round_robin_over_sources(self):
        rng = np.random.default_rng(0)
        groups = {f"s{i}": [(np.zeros(SR, np.float32), "c")] * (20 if i == 0 else 3) for i in range(5)}
        out = pack.select(rng, groups, 10.0)
        self.assertGreaterEqual(sum(len(x) for x, _, _ in out) / SR, 10.0)
        per = {s: sum(1 for _, _, ss in out if ss == s) for s in groups}
        self.assertEqual(set(per.values()), {2})  # each source in turn, not the one with most clips
        out = pack.select(rng, groups, 100.0)  # more than there is: everything once
        self.assertEqual(len(out), 20 + 4 * 3)

    def test_trim(self):
        x = np.concatenate([np.zeros(SR), tone(np.random.default_rng(0), 0.5, 300), np.zeros(SR)])
        y = pack.trim(x)
        self.assertLess(len(y), 0.6 * SR)
        self.assertGreater(len(y), 0.5 * SR)


class MixerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.tmp = tempfile.TemporaryDirectory()
        path = os.path.join(cls.tmp.name, "pack.npz")
        synthetic_pack(path)
        cls.pack = packio.load(path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_mixture_is_the_sum_and_finite(self):
        m = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=3)
        b = m.batch(16, 1.0)
        self.assertEqual(tuple(b["mix"].shape), (16, SR))
        for k in ("mix", "speech", "amb"):
            self.assertTrue(torch.isfinite(b[k]).all(), k)
        torch.testing.assert_close(b["mix"], b["speech"] + b["amb"], rtol=0, atol=0)
        self.assertLessEqual(b["mix"].abs().max().item(), 1.0)
        silent = ~b["has_speech"]
        self.assertEqual(int(silent.sum()), 2)  # 1/8 of 16
        self.assertEqual(b["speech"][silent].abs().max().item(), 0.0)
        self.assertTrue(torch.isnan(b["snr_db"][silent]).all())
        self.assertGreater(b["amb"][silent].abs().max().item(), 0.0)
        self.assertTrue((b["speech"][~silent].pow(2).mean(-1) > 0).all())

    def test_snr_in_range(self):
        cfg = gpu_mix.MixConfig(p_eq=0, p_highpass=0, p_lowpass=0, p_codec=0, p_limiter=0, silent_fraction=0)
        b = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=4, config=cfg).batch(32, 1.0)
        snr = b["snr_db"]
        self.assertTrue(((snr >= -5) & (snr <= 10)).all())
        measured = 20 * torch.log10(gpu_mix.rms(b["speech"])[:, 0] / gpu_mix.rms(b["amb"])[:, 0])
        torch.testing.assert_close(measured, snr, rtol=0, atol=0.01)

    def test_limiter_bounds_the_peak(self):
        g = torch.Generator().manual_seed(0)
        x = torch.randn(8, 4000, generator=g) * torch.linspace(0.1, 20, 4000)
        x[:, 1234] = 100.0  # a lone spike
        y = gpu_mix.limit(x, 0.5)
        self.assertLessEqual(y.abs().max().item(), 0.5 * (1 + 1e-6))
        gain = gpu_mix.limiter_gain(x, 0.5)
        self.assertTrue(((gain > 0) & (gain <= 1)).all())
        quiet = torch.randn(2, 4000, generator=g) * 0.01
        torch.testing.assert_close(gpu_mix.limit(quiet, 0.5), quiet)  # below the ceiling: untouched
        cfg = gpu_mix.MixConfig(p_limiter=1.0)
        b = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=5, config=cfg).batch(8, 1.0)
        self.assertTrue(b["limited"].all())
        self.assertLessEqual(b["mix"].abs().max().item(), 10 ** (-0.1 / 20) * (1 + 1e-5))

    def test_rooms_codecs_and_noise(self):
        cfg = gpu_mix.MixConfig(p_room_speech=1, p_room_amb=1, p_codec=1, p_noise=1, p_eq=1, p_highpass=1,
                                p_lowpass=1, p_limiter=0, silent_fraction=0)
        m = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=6, config=cfg)
        b = m.batch(8, 1.0)
        self.assertTrue(b["coded"].all())
        self.assertTrue(torch.isfinite(b["mix"]).all())
        h = m.rirs(4)
        self.assertTrue((h[:, 0] == 1).all())
        n = m.synth_noise(16, SR)
        self.assertTrue(torch.isfinite(n).all())
        torch.testing.assert_close(gpu_mix.rms(n)[:, 0], torch.ones(16), rtol=0, atol=1e-3)

    def test_same_seed_same_batch(self):
        a = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=7).batch(4, 0.5)
        b = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=7).batch(4, 0.5)
        torch.testing.assert_close(a["mix"], b["mix"], rtol=0, atol=0)

    def test_segments_read_the_pool(self):
        """A speech segment at rate 1 and 0 dB is made of the pool's own samples (RMS-normalised)."""
        cfg = gpu_mix.MixConfig(p_speech_rate=0)
        m = gpu_mix.GpuMixer(self.pack, "train", "cpu", seed=8, config=cfg)
        p = m.pools["speech"]
        x = m.place(p, 2, 3 * SR, p.ids("tts"), 1, 0, (0, 0), (0, 0), torch.ones(2))
        clips = [packio.mulaw_decode(self.pack["speech_train_audio"][a:b]) / r for a, b, r in
                 zip(self.pack["speech_train_offsets"][:-1], self.pack["speech_train_offsets"][1:],
                     self.pack["speech_train_rms"])]
        for row in x.numpy():
            n = int(np.nonzero(row)[0][-1]) + 1
            self.assertTrue(any(len(c) >= n and np.allclose(c[:n], row[:n], atol=1e-5) for c in clips))


class HeldOutTest(unittest.TestCase):
    def test_mixtures_and_summary(self):
        import train_gpu
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "pack.npz")
            synthetic_pack(path)
            p = packio.load(path)
        h = train_gpu.HeldOut(p, "cpu")
        S = torch.from_numpy(packio.mulaw_decode(p["eval_speech"]))
        A = torch.from_numpy(packio.mulaw_decode(p["eval_amb"]))
        torch.testing.assert_close(h.mix[1], S[1] + 0.5 * A[1])
        torch.testing.assert_close(h.ref[2], 0.5 * S[2])
        self.assertFalse(bool(h.has[4]))
        perfect = h.summary(h.scores(lambda m, rows: h.ref[rows]))
        self.assertGreater(perfect["all"]["mean"], 30)
        self.assertEqual(perfect["all"]["n"], 3)
        self.assertEqual(perfect["codec:mp3"]["n"], 1)
        self.assertLess(perfect["nospeech/song"]["mean_db"], -100)
        identity = h.summary(h.scores(lambda m, rows: m))
        self.assertAlmostEqual(identity["all"]["mean"], 0.0, places=3)
        self.assertTrue(math.isfinite(h.evaluate_oracle()["all"]["mean"]))


if __name__ == "__main__":
    unittest.main()
