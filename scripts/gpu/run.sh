#!/usr/bin/env bash
# Train the default radeid model on the GPU machine, from the repository root:
#   bash gpu/run.sh
# Needs gpu/ carried (train.jsonl.gz, val.jsonl.gz, base/, src/, train_entry.py, pack.py).
# Writes to $OUT: model.fp16.safetensors.partNN (< 15 MiB each), meta.tar.gz, SHA256SUMS, train.log.
# Environment: SMOKE=1 (a few documents, CPU-sized smoke test), MAX_STEPS, EPOCHS, BATCH, DEVICE, WORK.
set -euo pipefail
OUT=${OUT:-/tmp/radeid_out}
WORK=${WORK:-/tmp/radeid_work}
EPOCHS=${EPOCHS:-3}
BATCH=${BATCH:-16}
DEVICE=${DEVICE:-auto}
MAX_STEPS=${MAX_STEPS:-0}
PY=${PY:-python3}
# gpu/src: a snapshot of the trainprep branch's package (no bundled model), ahead of the checkout's src/
export PYTHONPATH="$PWD/gpu/src:$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export TOKENIZERS_PARALLELISM=false
mkdir -p "$OUT" "$WORK"
rm -rf "$WORK/model"
BASE=gpu/base
if [ -e gpu/base/word_embeddings.int8.safetensors ]; then  # a LEAN=1 base: rebuild the fp16 word embeddings
  rm -rf "$WORK/base" && cp -r gpu/base "$WORK/base" && rm "$WORK/base/word_embeddings.int8.safetensors"
  "$PY" - "$WORK/base" <<'PY'
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

dst = Path(sys.argv[1])
key = "embeddings.word_embeddings.weight"
q = load_file("gpu/base/word_embeddings.int8.safetensors")
state = load_file(str(dst / "model.safetensors"))
state[key] = (q[key + ".int8"].float() * q[key + ".scale"].float()).half().contiguous()
save_file(state, str(dst / "model.safetensors"), metadata={"format": "pt"})
print("rebuilt fp16 word embeddings from int8", tuple(state[key].shape))
PY
  BASE="$WORK/base"
fi
TRAIN=gpu/train.jsonl.gz
VAL=gpu/val.jsonl.gz
if [ "${SMOKE:-0}" = 1 ]; then
  zcat gpu/train.jsonl.gz | head -n 24 | gzip > "$WORK/train_smoke.jsonl.gz" || true
  zcat gpu/val.jsonl.gz | head -n 8 | gzip > "$WORK/val_smoke.jsonl.gz" || true
  TRAIN="$WORK/train_smoke.jsonl.gz"; VAL="$WORK/val_smoke.jsonl.gz"; EPOCHS=${EPOCHS_SMOKE:-2}
fi
{
  date -u
  "$PY" -c "import radeid.train.finetune as f; print('radeid from', f.__file__)"
  "$PY" -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), \
torch.cuda.get_device_name(0) if torch.cuda.is_available() else '', 'transformers', transformers.__version__)"
  "$PY" gpu/train_entry.py train "$TRAIN" --eval "$VAL" -o "$WORK/model" --base "$BASE" \
    --epochs "$EPOCHS" --freeze-epochs 1 --lr 1.5e-4 --head-lr 1e-3 --max-length 256 --stride 32 \
    --batch-size "$BATCH" --checkpoint-every 0 --seed 0 --max-steps "$MAX_STEPS" --device "$DEVICE"
  cat "$WORK/model/training.json" 2>/dev/null || true
  "$PY" gpu/pack.py "$WORK/model" "$OUT"
  date -u
} 2>&1 | tee "$OUT/train.log"
ls -la "$OUT"
