"""Unit tests of the viseme training pack (pack.py, packio.py) and train_gpu.py's batches, on a small synthetic
data folder shaped like gen_data.py's and gen_real.py's outputs (CPU, seconds; numpy and torch).

    cd training/lipsync && /usr/bin/python3 -m unittest test_pack -v
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import pack  # noqa: E402
import packio  # noqa: E402

TRAIN_SPEAKERS = ["june_fr", "ivr_ru"]
HELD_SPEAKERS = ["allison_en", "allison_es", "carlo_it"]


def write_set(path, rng, n_utts, meta_rows=None, lo=-13.8, hi=9.0):
    lengths = rng.integers(80, 300, n_utts)
    t = int(lengths.sum())
    feats = rng.uniform(lo, hi, (t, 40)).astype(np.float16)
    labels = rng.integers(0, 9, t).astype(np.int8)
    np.savez(path, feats=feats, labels=labels, rms=np.ones(t, np.float32), lengths=lengths)
    if meta_rows is not None:
        with open(path + ".json", "w", encoding="utf-8") as f:
            json.dump(meta_rows, f)
    return feats, labels, lengths


def fake_data(folder, seed=0, syn_train=120):
    """gen_data.py / gen_real.py outputs with random features and labels."""
    rng = np.random.default_rng(seed)
    langs = ["de", "fr", "ja"]
    meta = {"train": [{"lang": langs[i % 3]} for i in range(syn_train)],
            "test": [{"lang": "nl" if i % 2 else "uk"} for i in range(40)]}
    write_set(os.path.join(folder, "train.npz"), rng, syn_train)
    write_set(os.path.join(folder, "test.npz"), rng, 40)
    with open(os.path.join(folder, "meta.json"), "w") as f:
        json.dump(meta, f)
    out = {}
    for name, speakers, n in (("real_train", TRAIN_SPEAKERS, 30), ("real_test", HELD_SPEAKERS, 24)):
        rows = [{"speaker": speakers[i % len(speakers)]} for i in range(n)]
        out[name] = write_set(os.path.join(folder, name + ".npz"), rng, n, rows, lo=-12.0, hi=10.5)
    return out


class PackTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.data = cls.tmp.name
        cls.src = fake_data(cls.data)
        cls.sources, _ = pack.load_sources(cls.data)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_quantiser_round_trip_within_half_a_step(self):
        rng = np.random.default_rng(3)
        x = rng.uniform(-13.8, 11.0, (500, 40)).astype(np.float32)
        for bits, max_step in ((8, 0.1), (7, 0.2), (6, 0.4)):
            lo, step = packio.quantiser([x], bits)
            q = packio.quantise(x, lo, step, bits)
            err = np.abs(packio.dequantise(q, lo, step) - x)
            self.assertLessEqual(float((err - step / 2).max()), 1e-5)
            self.assertEqual(int(q.min()), 0)
            self.assertEqual(int(q.max()), 2 ** bits - 1)
            self.assertLess(float(step.max()), max_step)
            np.testing.assert_array_equal(packio.undelta(packio.delta(q)), q)
        self.assertEqual(packio.delta(np.zeros((0, 40), np.uint8)).shape, (0, 40))

    def test_held_out_speakers_complete_and_apart(self):
        arrays, meta = pack.build(self.sources, 40.0, 0.1, 20, seed=1)
        feats, labels, lengths = self.src["real_test"]
        np.testing.assert_array_equal(arrays["real_test_lengths"], lengths)
        np.testing.assert_array_equal(arrays["real_test_labels"], labels.astype(np.uint8))
        deq = packio.features(packio.decoded(arrays), "real_test")
        self.assertLessEqual(float(np.abs(deq - feats.astype(np.float32)).max()),
                             float(arrays["real_test_step"].max()) / 2 + 1e-4)
        self.assertLess(float(arrays["real_test_step"].max()), 0.1)  # scored sets: 8 bits
        self.assertEqual(sorted(arrays["real_test_groups"].tolist()), sorted(HELD_SPEAKERS))
        for s in ("real_train", "real_val"):
            self.assertEqual(sorted(arrays[f"{s}_groups"].tolist()), sorted(TRAIN_SPEAKERS))
            self.assertFalse(set(arrays[f"{s}_groups"].tolist()) & set(HELD_SPEAKERS))
        self.assertEqual(meta["sets"]["real_test"]["utterances"], 24)

    def test_validation_utterances_are_not_trained_on(self):
        arrays, _ = pack.build(self.sources, 40.0, 0.2, 20, seed=1)
        _, labels, lengths = self.src["real_train"]
        offs = np.concatenate([[0], np.cumsum(lengths)])
        key = lambda i: labels[offs[i]:offs[i + 1]].tobytes()  # noqa: E731  (random labels identify an utterance)
        src_keys = {key(i): i for i in range(len(lengths))}

        def utts(s):
            o = np.concatenate([[0], np.cumsum(arrays[f"{s}_lengths"])])
            lab = arrays[f"{s}_labels"].astype(np.int8)
            return {src_keys[lab[o[i]:o[i + 1]].tobytes()] for i in range(len(o) - 1)}
        tr, va = utts("real_train"), utts("real_val")
        self.assertFalse(tr & va)
        self.assertEqual(tr | va, set(range(len(lengths))))
        self.assertEqual(len(va), 6)  # 20 % of 15 utterances of each of the two speakers
        self.assertEqual(len(set(arrays["real_val_group"].tolist())), 2)

    def test_budget_limits_the_synthetic_training_set(self):
        full, meta_full = pack.build(self.sources, 40.0, 0.1, 20, seed=1)
        self.assertEqual(meta_full["sets"]["syn_train"]["utterances"], 120)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "pack.npz")
            fixed = pack.deflated({k: v for k, v in full.items() if not k.startswith("syn_train")})
            mib = (fixed + pack.OVERHEAD_BYTES + 0.4 * pack.deflated({k: v for k, v in full.items()
                                                                       if k.startswith("syn_train")})) / 2 ** 20
            arrays, meta = pack.build(self.sources, mib, 0.1, 20, seed=1)
            packio.save(out, arrays, meta)
            self.assertLessEqual(os.path.getsize(out), mib * 2 ** 20)
            n = meta["sets"]["syn_train"]["utterances"]
            self.assertTrue(30 <= n <= 60, n)
            self.assertEqual(len(arrays["syn_train_lengths"]), n)
            self.assertEqual(len(arrays["syn_train_labels"]), int(arrays["syn_train_lengths"].sum()))

    def test_command_line_writes_a_pack_that_loads(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p", "pack.npz")
            r = subprocess.run([sys.executable, os.path.join(HERE, "pack.py"), "--data", self.data, "--out", out,
                                "--no-build", "--syn-val", "10"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            p = packio.load(out)
            for s in packio.SETS:
                x = packio.features(p, s)
                self.assertEqual(x.shape, (int(p[f"{s}_lengths"].sum()), 40))
                self.assertEqual(len(p[f"{s}_labels"]), len(x))
                self.assertLess(int(p[f"{s}_labels"].max()), 9)
            self.assertEqual(p["meta"]["sets"]["syn_val"]["utterances"], 10)
            self.assertEqual(set(p["meta"]["sets"]["syn_val"]["groups"]), {"nl", "uk"})

    def test_no_build_fails_on_missing_data(self):
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sys.executable, os.path.join(HERE, "pack.py"), "--data", d, "--out",
                                os.path.join(d, "x.npz"), "--no-build"], capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0)
            self.assertFalse(os.path.exists(os.path.join(d, "x.npz")))


class BatchTest(unittest.TestCase):
    def test_augment_bounds_and_masks(self):
        import torch
        from train_gpu import augment
        gen = torch.Generator().manual_seed(0)
        x = torch.zeros(64, 50, 40) - 5.0
        mean = torch.full((40,), -20.0)
        y = augment(x, mean, gen)
        masked = (y == -20.0)
        self.assertTrue(masked.any())
        self.assertTrue(torch.equal(masked.any(1), masked.all(1)))  # whole bands over time
        self.assertLessEqual(int(masked.all(1).sum(-1).max()), 4)  # 1-4 bands
        rest = y[~masked] + 5.0
        self.assertLessEqual(float(rest.abs().max()), 1.5 + 0.6 + 1e-5)  # gain ±1.5, EQ ≤ 0.3 + 0.15 + 0.15
        per_example = (y + 5.0).masked_fill(masked, 0)
        self.assertGreater(float(per_example.std()), 0.3)  # examples differ

    def test_crops_come_from_the_stream(self):
        import torch
        from train_gpu import Stream
        with tempfile.TemporaryDirectory() as d:
            fake_data(d, seed=5, syn_train=20)
            arrays, _ = pack.build(pack.load_sources(d)[0], 40.0, 0.1, 10, seed=2)
            s = Stream(packio.decoded(arrays), "real_train", torch.device("cpu"))
            x, y = s.crops(16, 30, torch.Generator().manual_seed(1))
            self.assertEqual(tuple(x.shape), (16, 30, 40))
            self.assertEqual(tuple(y.shape), (16, 30))
            start = int(torch.nonzero((s.x == x[3, 0]).all(-1))[0])
            torch.testing.assert_close(s.y[start:start + 30], y[3])


if __name__ == "__main__":
    unittest.main()
