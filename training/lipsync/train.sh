#!/bin/sh
# Reproduces models/lipsync/viseme.onnx and golden.json on one CPU core: synthetic data (~15 min),
# real recorded speech force-aligned (~25 min), training, held-out evaluation, ONNX export.
# Needs the apt packages listed in README.md (espeak-ng, ffmpeg, pocketsphinx, asterisk sounds ...).
# Knobs: TRAIN_UTTS, TEST_UTTS, STEPS, MINUTES, INIT (warm start; empty = from scratch), LR,
# REAL_SHARE, PYTHON. v1 (espeak only) = INIT= STEPS=2800 LR=3e-3 REAL_SHARE=0.
set -e
cd "$(dirname "$0")"
PY=${PYTHON:-/usr/bin/python3}
SHIPPED=../../models/lipsync/viseme.onnx
$PY gen_data.py --train "${TRAIN_UTTS:-2400}" --test "${TEST_UTTS:-400}"
$PY gen_real.py
$PY train.py --init "${INIT-$SHIPPED}" --steps "${STEPS:-1500}" --lr "${LR:-1e-3}" \
  --real-share "${REAL_SHARE:-0.35}" --minutes "${MINUTES:-45}" --anneal-by-time
$PY evaluate.py --previous "$SHIPPED"
$PY export.py
