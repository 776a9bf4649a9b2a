"""The per-patient date-shift table (`--date-shifts shifts.csv`, `[surrogate] date_shifts`).

A research data centre often has to honour shifts it already gave out (an earlier export, a
linked registry): a CSV with the header `patient_id,shift_days` fixes the shift of each patient
in it; every other patient gets the keyed shift. The table is read once per process (cached by
path, size and modification time). A bad row stops the job with the file and line named, never
the row's values: patient ids are identifiers too.
"""

from __future__ import annotations

import csv
import os
from functools import lru_cache
from pathlib import Path

from radeid.core.errors import ConfigError

__all__ = ["MAX_TABLE_SHIFT", "read_shift_table"]

#: Largest shift the table accepts (about 100 years): beyond it dates leave the plausible range.
MAX_TABLE_SHIFT = 36_525
_HEADER = ["patient_id", "shift_days"]


def read_shift_table(path: str | Path) -> dict[str, int]:
    """patient id -> shift in days; a `ConfigError` naming the file and line for a bad row."""
    where = Path(path)
    try:
        stat = os.stat(where)
    except OSError:
        raise ConfigError(f"date_shifts: cannot read {where}: no such file") from None
    return dict(_read(str(where), stat.st_size, stat.st_mtime_ns))


@lru_cache(maxsize=4)
def _read(path: str, size: int, mtime_ns: int) -> tuple[tuple[str, int], ...]:
    """The rows of the table (size and time are only the cache key: a changed file is read again)."""
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            rows = list(csv.reader(handle))
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"date_shifts: cannot read {path}: {type(exc).__name__}") from None
    if not rows or [c.strip().lower() for c in rows[0]] != _HEADER:
        raise ConfigError(f"{path} line 1: the header must be exactly: patient_id,shift_days")
    table: dict[str, int] = {}
    first_line: dict[str, int] = {}
    for line, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue  # blank lines
        if len(row) != 2:
            raise ConfigError(f"{path} line {line}: expected 2 fields (patient_id,shift_days), found {len(row)}")
        patient, shift = row[0].strip(), row[1].strip()
        if not patient:
            raise ConfigError(f"{path} line {line}: the patient_id is empty")
        try:
            days = int(shift)
        except ValueError:
            raise ConfigError(f"{path} line {line}: shift_days must be a whole number of days") from None
        if abs(days) > MAX_TABLE_SHIFT:
            raise ConfigError(f"{path} line {line}: shift_days must be within ±{MAX_TABLE_SHIFT}")
        if patient in table:
            raise ConfigError(f"{path} line {line}: the patient_id of line {first_line[patient]} again")
        table[patient] = days
        first_line[patient] = line
    return tuple(table.items())
