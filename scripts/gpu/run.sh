#!/usr/bin/env bash
# Train the default radeid model on the GPU machine, from the repository root:
#   bash gpu/run.sh
# Needs gpu/ carried (train.jsonl.gz, val.jsonl.gz, base/, train_entry.py, pack.py).
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
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export TOKENIZERS_PARALLELISM=false
mkdir -p "$OUT" "$WORK"
rm -rf "$WORK/model"
TRAIN=gpu/train.jsonl.gz
VAL=gpu/val.jsonl.gz
if [ "${SMOKE:-0}" = 1 ]; then
  zcat gpu/train.jsonl.gz | head -n 24 | gzip > "$WORK/train_smoke.jsonl.gz" || true
  zcat gpu/val.jsonl.gz | head -n 8 | gzip > "$WORK/val_smoke.jsonl.gz" || true
  TRAIN="$WORK/train_smoke.jsonl.gz"; VAL="$WORK/val_smoke.jsonl.gz"; EPOCHS=${EPOCHS_SMOKE:-2}
fi
{
  date -u
  "$PY" -c "import torch, transformers; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), \
torch.cuda.get_device_name(0) if torch.cuda.is_available() else '', 'transformers', transformers.__version__)"
  "$PY" gpu/train_entry.py train "$TRAIN" --eval "$VAL" -o "$WORK/model" --base gpu/base \
    --epochs "$EPOCHS" --freeze-epochs 1 --lr 1.5e-4 --head-lr 1e-3 --max-length 256 --stride 32 \
    --batch-size "$BATCH" --checkpoint-every 0 --seed 0 --max-steps "$MAX_STEPS" --device "$DEVICE"
  cat "$WORK/model/training.json" 2>/dev/null || true
  "$PY" gpu/pack.py "$WORK/model" "$OUT"
  date -u
} 2>&1 | tee "$OUT/train.log"
ls -la "$OUT"
