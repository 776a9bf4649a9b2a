"""Where the secret key comes from. The key seeds every surrogate and opens the vault, so it
comes only from the user (a key file or the RADEID_KEY variable) or is generated at random and
written next to the output with mode 0600. It is never printed or logged, and the code holds no
key of its own.

Key file / variable format: 64 hex characters (what `resolve_key` writes), `base64:<data>`, or
any other text, used as a passphrase (its UTF-8 bytes, surrounding whitespace stripped). A key
file that is not UTF-8 text is used as raw bytes.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import stat
from pathlib import Path

__all__ = ["ENV_VAR", "KEY_FILE_NAME", "decode_key", "generate_key_file", "resolve_key"]

ENV_VAR = "RADEID_KEY"
KEY_FILE_NAME = "radeid.key"
_MIN_BYTES = 16
_HEX = re.compile(r"[0-9a-fA-F]{64}")


def decode_key(text: str, origin: str) -> bytes:
    """Key bytes from the text of a key file or variable (see the module docstring)."""
    value = text.strip()
    if not value:
        raise ValueError(f"the key from {origin} is empty")
    if _HEX.fullmatch(value):
        return bytes.fromhex(value)
    if value.startswith("base64:"):
        try:
            raw = base64.b64decode(value[7:], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"the key from {origin} is not valid base64") from None
        if not raw:
            raise ValueError(f"the key from {origin} is empty")
        return raw
    return value.encode("utf-8")


def _strength_note(key: bytes, origin: str) -> str:
    if len(key) < _MIN_BYTES:
        return f"warning: the key from {origin} is short ({len(key)} bytes); use at least {_MIN_BYTES} random bytes"
    return ""


def generate_key_file(path: Path) -> bytes:
    """Write a new random 32-byte key as hex to `path`, created with mode 0600 (never replaced)."""
    key = secrets.token_bytes(32)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key.hex() + "\n")
    os.chmod(path, 0o600)  # whatever the umask did
    return key


def resolve_key(key_file: Path | None, output_dir: Path) -> tuple[bytes, str]:
    """The key to use and a message for the user ("" when there is nothing to say).

    Order: `key_file` (the --key-file option), else the RADEID_KEY variable, else the key file
    already next to the output (a re-run into the same folder stays consistent), else a new
    random key written to `output_dir/radeid.key` (mode 0600). The message never contains the
    key.
    """
    if key_file is not None:
        path = Path(key_file)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read the key file {path}: {exc.strerror}") from None
        try:
            key = decode_key(data.decode("utf-8"), str(path))
        except UnicodeDecodeError:
            key = data  # raw random bytes (e.g. from `head -c 32 /dev/urandom`)
        notes = [_strength_note(key, str(path))]
        mode = stat.S_IMODE(path.stat().st_mode)
        if os.name == "posix" and mode & 0o077:
            notes.append(f"warning: the key file {path} is readable by others; run `chmod 600 {path}`")
        return key, "\n".join(n for n in notes if n)
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip():
        key = decode_key(env, f"${ENV_VAR}")
        return key, _strength_note(key, f"${ENV_VAR}")
    path = Path(output_dir) / KEY_FILE_NAME
    if path.exists():
        key = decode_key(path.read_text(encoding="utf-8"), str(path))
        return key, (
            f"No key given: reusing the key in {path}. Pass --key-file {path} (or set {ENV_VAR}) to make this explicit."
        )
    key = generate_key_file(path)
    return key, (
        f"No key given: generated a new random key and saved it to {path} (mode 0600). Keep it "
        f"secret and keep it: reuse it with --key-file {path} (or {ENV_VAR}=$(cat {path})) to get "
        "the same surrogates for the same patients in later runs and to open the vault; without "
        "it the vault cannot be decrypted."
    )
