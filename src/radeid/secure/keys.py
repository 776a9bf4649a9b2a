"""Where the secret key comes from. The key seeds every surrogate and opens the vault, so it
comes only from the user (a key file or the RADEID_KEY variable) or is generated at random and
written next to the output with mode 0600. It is never printed or logged, and the code holds no
key of its own.

Key file / variable format: 64 hex characters (what `resolve_key` writes), `base64:<data>`, or
any other text, used as a passphrase: surrounding whitespace stripped, then stretched with scrypt
(fixed salt, n=2**15) into 32 bytes before it seeds anything, so a guessable passphrase costs an
attacker a key derivation per guess. A key file that is not UTF-8 text is used as raw bytes.

Where a generated key goes (`key_dir_for`): the folder that holds the output, i.e. beside the
output file, or beside (never inside) an output folder, so sharing the output folder never ships
the key; never inside an input folder.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import secrets
import stat
from pathlib import Path

__all__ = [
    "ENV_VAR",
    "KEY_FILE_NAME",
    "decode_key",
    "generate_key_file",
    "key_fingerprint",
    "key_dir_for",
    "key_path_for",
    "load_key",
    "passphrase_key",
    "resolve_key",
]

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
    return passphrase_key(value)


_PASSPHRASE_SALT = b"radeid/passphrase/v1"


def passphrase_key(passphrase: str) -> bytes:
    """32 key bytes from a passphrase (scrypt, n=2**15, r=8, p=1: ~0.1 s, 32 MiB)."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    return Scrypt(salt=_PASSPHRASE_SALT, length=32, n=2**15, r=8, p=1).derive(passphrase.encode("utf-8"))


def key_fingerprint(key: bytes) -> str:
    """A short public name of a key, to tell in a run report which key a run used (never the key).

    HMAC-SHA256 of a fixed label under the key, first 16 hex characters: one-way, and it names the
    key bytes themselves, so a passphrase costs its scrypt stretch per guess here too (no cheaper
    test of guesses than the outputs already give).
    """
    import hashlib
    import hmac

    return "hmac-sha256:" + hmac.new(key, b"radeid/key-fingerprint/v1", hashlib.sha256).hexdigest()[:16]


def _is_passphrase(text: str) -> bool:
    value = text.strip()
    return bool(value) and not _HEX.fullmatch(value) and not value.startswith("base64:")


def key_dir_for(output: Path, input_path: Path | None = None) -> Path:
    """Where a generated key is saved: the folder holding the output (beside an output folder,
    never inside it). Raises `ValueError` when that folder is inside a folder input."""
    out = Path(os.path.realpath(output))
    folder = out.parent
    if input_path is not None:
        inp = Path(os.path.realpath(input_path))
        if inp.is_dir() and (folder == inp or inp in folder.parents):
            raise ValueError(
                f"a generated key would be saved in {str(folder)!r}, inside the input folder; "
                "pass --key-file (or set RADEID_KEY)"
            )
    return folder


def key_path_for(key_file: str | Path | None, output: Path) -> Path | None:
    """The key file a command reads or generates for `output`: `key_file`, else None when
    RADEID_KEY holds the key, else `radeid.key` in the folder holding the output (`resolve_key`'s
    choice). Every command checks this path against the ones it writes (`radeid.io.paths`)."""
    if key_file is not None and str(key_file) != "":
        return Path(key_file)
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip():
        return None
    return Path(os.path.realpath(output)).parent / KEY_FILE_NAME


def _strength_note(key: bytes, origin: str, text: str | None = None) -> str:
    if text is not None and _is_passphrase(text):
        if len(text.strip().encode("utf-8")) < _MIN_BYTES:
            return f"warning: the passphrase from {origin} is short; use at least {_MIN_BYTES} characters"
        return ""
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


def load_key(key_file: str | Path | None) -> tuple[bytes, str] | None:
    """The user's key, read the one way every command reads it: `key_file` (a file: hex, base64:,
    a passphrase, or raw bytes), else the RADEID_KEY variable; None when neither is given.
    Returns the key and a warning for the user ("" when there is nothing to say)."""
    if key_file is not None and str(key_file) != "":
        path = Path(key_file)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read the key file {path}: {exc.strerror}") from None
        text: str | None
        try:
            text = data.decode("utf-8")
            key = decode_key(text, str(path))
        except UnicodeDecodeError:
            text, key = None, data  # raw random bytes (e.g. from `head -c 32 /dev/urandom`)
        notes = [_strength_note(key, str(path), text)]
        mode = stat.S_IMODE(path.stat().st_mode)
        if os.name == "posix" and mode & 0o077:
            notes.append(f"warning: the key file {path} is readable by others; run `chmod 600 {path}`")
        return key, "\n".join(n for n in notes if n)
    env = os.environ.get(ENV_VAR)
    if env is not None and env.strip():
        key = decode_key(env, f"${ENV_VAR}")
        return key, _strength_note(key, f"${ENV_VAR}", env)
    return None


def resolve_key(key_file: str | Path | None, output_dir: Path, *, vault: bool = False) -> tuple[bytes, str]:
    """The key to use and a message for the user ("" when there is nothing to say).

    Order: `load_key` (the key file, else RADEID_KEY), else the key file already in `output_dir`
    (a re-run into the same folder stays consistent), else a new random key written to
    `output_dir/radeid.key` (mode 0600). The message never contains the key; it mentions the
    vault only when one is written (`vault`).
    """
    found = load_key(key_file)
    if found is not None:
        return found
    path = Path(output_dir) / KEY_FILE_NAME
    if path.exists():
        key = decode_key(path.read_text(encoding="utf-8"), str(path))
        return key, (
            f"No key given: reusing the key in {path}. Pass --key-file {path} (or set {ENV_VAR}) to make this explicit."
        )
    key = generate_key_file(path)
    why = "to get the same surrogates for the same patients in later runs"
    if vault:
        why += " and to open the vault; without it the vault cannot be decrypted"
    return key, (
        f"No key given: generated a new random key and saved it to {path} (mode 0600). Keep it "
        f"secret and keep it: reuse it with --key-file {path} (or {ENV_VAR}=$(cat {path})) {why}. "
        "Make a key once with `radeid keygen -o site.key`."
    )
