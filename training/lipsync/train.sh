#!/bin/sh
# Reproduces models/lipsync/viseme.onnx and golden.json from scratch on one CPU core:
# data generation (~15 min), training (~40 min), held-out evaluation, ONNX export.
# Knobs: TRAIN_UTTS, TEST_UTTS, STEPS, PYTHON.
set -e
cd "$(dirname "$0")"
PY=${PYTHON:-/usr/bin/python3}
$PY gen_data.py --train "${TRAIN_UTTS:-2400}" --test "${TEST_UTTS:-400}"
$PY train.py --steps "${STEPS:-2800}"
$PY evaluate.py
$PY export.py
