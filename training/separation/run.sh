#!/bin/sh
# Reproduces models/separation/separator.onnx, golden.json and heldout.json from scratch on one CPU core.
#   apt-get install fillets-ng-data-cs alsa-utils hyperrogue-music sonic-pi-samples freedoom fb-music-high espeak-ng ffmpeg
# Steps: source pools (~1 min), codec round trips (~1 min), training (TRAIN_MINUTES, default 86), held-out
# evaluation (results.json), ONNX export. Knobs: TRAIN_MINUTES, ESPEAK_TRAIN, ESPEAK_TEST, PYTHON.
set -e
cd "$(dirname "$0")"
PY=${PYTHON:-/usr/bin/python3}
mkdir -p data
$PY prep.py 2>&1 | tee data/prep.log
$PY codec.py 2>&1 | tee data/codec.log
$PY train.py --minutes "${TRAIN_MINUTES:-86}" 2>&1 | tee data/train.log
$PY evaluate.py 2>&1 | tee data/evaluate.log
$PY export.py
