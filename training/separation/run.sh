#!/bin/sh
# Reproduces models/separation/separator.onnx, golden.json and heldout.json from Debian packages only.
#   apt-get install fillets-ng-data-cs alsa-utils hyperrogue-music sonic-pi-samples freedoom fb-music-high \
#     wesnoth-1.16-music warzone2100-music singularity-music planetblupi-music-ogg drascula-music asc-music \
#     nexuiz-music ufoai-music fretsonfire-songs-muldjord fretsonfire-songs-sectoid asterisk-core-sounds-en-g722 \
#     asterisk-core-sounds-es-g722 asterisk-core-sounds-fr-g722 asterisk-core-sounds-it-g722 asterisk-core-sounds-ru-g722 \
#     espeak-ng ffmpeg sox python3-torch python3-numpy python3-scipy python3-onnx
# Steps: source pools (~3 min), codec round trips (~1 min), training (TRAIN_MINUTES, default 100), held-out
# evaluation (results.json), ONNX export. Knobs: TRAIN_MINUTES, THREADS (torch threads, default 2), LR (peak learning
# rate, default 1e-3; 4e-4 when fine-tuning), INIT_ONNX (start from an exported model's weights instead of from
# scratch), ESPEAK_TRAIN, ESPEAK_TEST, PYTHON. The shipped model: see README.md ("RESULTS").
set -e
cd "$(dirname "$0")"
PY=${PYTHON:-/usr/bin/python3}
mkdir -p data
$PY prep.py 2>&1 | tee data/prep.log
$PY codec.py 2>&1 | tee data/codec.log
if [ -n "$INIT_ONNX" ]; then
  $PY train.py --minutes "${TRAIN_MINUTES:-100}" --threads "${THREADS:-2}" --lr "${LR:-4e-4}" --init-onnx "$INIT_ONNX" 2>&1 | tee data/train.log
else
  $PY train.py --minutes "${TRAIN_MINUTES:-100}" --threads "${THREADS:-2}" --lr "${LR:-1e-3}" 2>&1 | tee data/train.log
fi
$PY evaluate.py 2>&1 | tee data/evaluate.log
$PY export.py
