"""pack.py MODEL_DIR OUT_DIR: the trained model as fp16 safetensors cut into parts < 15 MiB,
plus the small files in one tar.gz and a sha256 list (for the 8-file, 16 MiB-per-file return)."""

import hashlib
import sys
import tarfile
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

PART = 14 * 1024 * 1024
src, out = Path(sys.argv[1]), Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
state = load_file(str(src / "model.safetensors"))
half = {k: (v.to(torch.float16) if v.is_floating_point() else v).contiguous() for k, v in state.items()}
tmp = Path("/tmp/radeid_model_fp16.safetensors")
save_file(half, str(tmp), metadata={"format": "pt"})
blob = tmp.read_bytes()
sums = [f"{hashlib.sha256(blob).hexdigest()}  model.fp16.safetensors"]
for i in range(0, len(blob), PART):
    name = f"model.fp16.safetensors.part{i // PART:02d}"
    (out / name).write_bytes(blob[i : i + PART])
with tarfile.open(out / "meta.tar.gz", "w:gz") as tar:
    for name in (
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "vocab.txt",
        "training.json",
    ):
        if (src / name).exists():
            tar.add(src / name, arcname=name)
(out / "SHA256SUMS").write_text("\n".join(sums) + "\n")
print(f"packed {len(blob)} bytes fp16 into {len(range(0, len(blob), PART))} part(s) in {out}")
