#!/usr/bin/env bash
# Local: turn what gpu/run.sh returned into a radeid ONNX int8 model with calibrated thresholds.
#   bash gpu/finish.sh RETURNED_DIR DEST [VAL.jsonl.gz]
# RETURNED_DIR holds model.fp16.safetensors.partNN, meta.tar.gz, SHA256SUMS (the run's $OUT files).
# DEST must not exist yet. Environment: PY (python with torch/onnx), SRC (radeid source, default:
# gpu/src, the trainprep snapshot, else the src/ next to this gpu/ folder), TARGET_RECALL (0.995), MAX_DISAGREEMENT (0.015, as the card).
set -euo pipefail
RET=$(cd "$1" && pwd)
DEST=$2
HERE=$(cd "$(dirname "$0")" && pwd)
VAL=${3:-$HERE/val.jsonl.gz}
PY=${PY:-/work/main/.venv/bin/python}
if [ -d "$HERE/src/radeid" ]; then SRC=${SRC:-$HERE/src}; else SRC=${SRC:-$(cd "$HERE/.." && pwd)/src}; fi
TARGET_RECALL=${TARGET_RECALL:-0.995}
MAX_DISAGREEMENT=${MAX_DISAGREEMENT:-0.015}
export PYTHONPATH="$SRC${PYTHONPATH:+:$PYTHONPATH}"
[ -e "$DEST" ] && { echo "error: $DEST exists" >&2; exit 2; }
HF=$(mktemp -d /tmp/radeid_hf.XXXXXX)
cat "$RET"/model.fp16.safetensors.part* > "$HF/model.fp16.safetensors"
(cd "$HF" && sha256sum -c "$RET/SHA256SUMS")
tar -xzf "$RET/meta.tar.gz" -C "$HF"
for f in tokenizer.json special_tokens_map.json vocab.txt; do
  [ -e "$HF/$f" ] || cp "$HERE/base/$f" "$HF/$f"
done
"$PY" - "$HF" <<'PY'
import sys
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

folder = Path(sys.argv[1])
state = load_file(str(folder / "model.fp16.safetensors"))
full = {k: (v.to(torch.float32) if v.is_floating_point() else v).contiguous() for k, v in state.items()}
save_file(full, str(folder / "model.safetensors"), metadata={"format": "pt"})
(folder / "model.fp16.safetensors").unlink()
import json
cfg = json.loads((folder / "config.json").read_text())
for key in ("dtype", "torch_dtype"):
    if key in cfg:
        cfg[key] = "float32"
(folder / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
print(f"reassembled {len(full)} tensors (fp32) in {folder}")
PY
"$PY" -m radeid model export "$HF" "$DEST" --quantize int8 --max-disagreement "$MAX_DISAGREEMENT"
"$PY" -m radeid model calibrate "$DEST" "$VAL" --target-recall "$TARGET_RECALL"
cp "$HF/training.json" "$DEST/training.json" 2>/dev/null || true
"$PY" -m radeid model info "$DEST" || true
echo "HF folder (fp32, from fp16): $HF"
echo "done: $DEST"
