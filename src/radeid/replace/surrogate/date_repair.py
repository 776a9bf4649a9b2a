"""Impossible dates made valid in their own format (2/30/2020, 2019-13-05T48:30:00Z, 31APR2019):
what a surrogate date falls back to when `parse_date` rejects the original (issue 13). Split from
`date_template.py`, whose grammar it reuses."""

from __future__ import annotations

import re

from radeid.replace.surrogate.date_template import MONTH_WORDS, date_tokens, days_in, full_year, valid_hms
from radeid.replace.surrogate.keyed import KeyStream

__all__ = ["PLAUSIBLE_YEARS", "impossible_clock", "repair_date"]


_TIME_PARTS = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")
PLAUSIBLE_YEARS = (1900, 2100)


def repair_date(text: str, day_first: bool, stream: KeyStream) -> str | None:
    """A date `parse_date` rejects (2/30/2020, 2019-13-05T48:30:00Z, 31APR2019) made valid in
    place: the same template, each impossible part replaced (a day past the month's end becomes
    its last day, an impossible month or day a keyed random one, a year outside 1900-2100 a
    keyed random one in 1950-2030, an impossible time a valid one of the same shape). Returns
    the repaired text, which `parse_date` reads, or None when the shape is not a date's."""
    tokens = date_tokens(text)
    nums = [i for i, (kind, _) in enumerate(tokens) if kind == "num"]
    month_word = next(
        (MONTH_WORDS[t.casefold()][0] for k, t in tokens if k == "alpha" and t.casefold() in MONTH_WORDS), 0
    )
    found = _roles(tokens, nums, month_word, day_first)
    if found is None:
        return None
    roles, compact = found
    # the parts, as written: (token index, start, end, role)
    parts = [(i, 0, len(tokens[i][1]), role) for i, role in roles.items()]
    if compact:
        parts = [(nums[0], s, e, role) for role, s, e in compact]
    values = {role: int(tokens[i][1][s:e]) for i, s, e, role in parts}
    _repair_values(values, month_word, stream)
    return _rewrite(tokens, parts, values, nums[0] if compact else -1, stream)


def _roles(
    tokens: list[tuple[str, str]], nums: list[int], month_word: int, day_first: bool
) -> tuple[dict[int, str], tuple[tuple[str, int, int], ...]] | None:
    """Each number's role, or for one compact number (20190312) its fields' roles and slices; None: not a date."""
    roles: dict[int, str] = {}
    compact: tuple[tuple[str, int, int], ...] = ()
    lens = [len(tokens[i][1]) for i in nums]
    if month_word:
        for i in nums:
            tok = tokens[i][1]
            taken = set(roles.values())
            if len(tok) == 4 and "Y4" not in taken:
                roles[i] = "Y4"
            elif len(tok) <= 2 and "D" not in taken:
                roles[i] = "D"
            elif len(tok) == 2 and "Y2" not in taken and "Y4" not in taken:
                roles[i] = "Y2"
            else:
                return None
    elif len(nums) == 3 and lens[0] == 4 and lens[1] <= 2 and lens[2] <= 2:
        roles = dict(zip(nums, ("Y4", "M", "D"), strict=True))
    elif len(nums) == 3 and lens[0] <= 2 and lens[1] <= 2 and lens[2] in (2, 4):
        a, b = int(tokens[nums[0]][1]), int(tokens[nums[1]][1])
        first_day = (day_first or a > 12) and not (b > 12 and a <= 12)
        yr = "Y4" if lens[2] == 4 else "Y2"
        roles = dict(zip(nums, ("D", "M", yr) if first_day else ("M", "D", yr), strict=True))
    elif len(nums) == 2 and lens in ([4, 1], [4, 2]):
        roles = {nums[0]: "Y4", nums[1]: "M"}
    elif len(nums) == 2 and lens in ([1, 4], [2, 4]):
        roles = {nums[0]: "M", nums[1]: "Y4"}
    elif len(nums) == 1 and lens[0] in (8, 12, 14):
        tok = tokens[nums[0]][1]
        if tok[:2] in ("19", "20") or lens[0] > 8:
            compact = (("Y4", 0, 4), ("M", 4, 6), ("D", 6, 8))
        elif day_first:
            compact = (("D", 0, 2), ("M", 2, 4), ("Y4", 4, 8))
        else:
            compact = (("M", 0, 2), ("D", 2, 4), ("Y4", 4, 8))
    elif len(nums) == 1 and lens[0] == 6:
        compact = (("D", 0, 2), ("M", 2, 4), ("Y2", 4, 6)) if day_first else (("M", 0, 2), ("D", 2, 4), ("Y2", 4, 6))
    else:
        return None
    return roles, compact


def _repair_values(values: dict[str, int], month_word: int, stream: KeyStream) -> None:
    """Make the year, month and day possible in place; the keyed draws come in this order (year, month, day)."""
    year = values.get("Y4", 0)
    if "Y4" in values and not PLAUSIBLE_YEARS[0] <= year <= PLAUSIBLE_YEARS[1]:
        year = values["Y4"] = 1950 + stream.below(81)
    elif "Y2" in values:
        year = full_year(f"{values['Y2']:02d}")
    month = values.get("M", month_word)
    if not 1 <= month <= 12:
        month = 1 + stream.below(12)
        if "M" in values:
            values["M"] = month
    if "D" in values:
        day = values["D"]
        last = days_in(year or 2000, month or 1)
        values["D"] = last if last < day <= 31 else day if 1 <= day <= last else 1 + stream.below(28)


def _rewrite(
    tokens: list[tuple[str, str]],
    parts: list[tuple[int, int, int, str]],
    values: dict[str, int],
    compact_at: int,
    stream: KeyStream,
) -> str:
    """The text with each part rewritten at its width and impossible times of day repaired (-1: not compact)."""
    new = [tok for _, tok in tokens]
    for i, s, e, role in sorted(parts, key=lambda p: (p[0], -p[1])):
        # a one-digit field may take two ("9/31" -> "9/30"); others keep their width
        written = str(values[role]) if e - s == 1 else f"{values[role]:0{e - s}d}"
        new[i] = new[i][:s] + written + new[i][e:]
    if compact_at >= 0 and len(tokens[compact_at][1]) > 8:
        new[compact_at] = new[compact_at][:8] + _repair_clock(new[compact_at][8:], stream, compact=True)
    for i, (kind, tok) in enumerate(tokens):
        if kind == "time":
            new[i] = _repair_clock(tok, stream)
    return "".join(new)


def impossible_clock(text: str) -> bool:
    """Whether a time of day in `text` has an impossible hour, minute or second (14:75, 25:00)."""
    if ":" not in text:
        return False
    for kind, token in date_tokens(text):
        if kind == "time":
            parts = _TIME_PARTS.match(token)
            if parts is not None and not valid_hms(parts.group(1), parts.group(2), parts.group(3) or "0"):
                return True
    return False


def _repair_clock(text: str, stream: KeyStream, compact: bool = False) -> str:
    """A time of day with an impossible hour, minute or second made valid, same shape."""
    if compact:
        parts = [text[k : k + 2] for k in range(0, len(text), 2)]
        twelve = False
    else:
        m = _TIME_PARTS.match(text)
        if m is None:
            return text
        parts = [p for p in m.groups() if p is not None]
        twelve = bool(re.search(r"[AaPp]\.?[Mm]", text))
    hour_max = 12 if twelve else 23
    fixed = []
    for k, part in enumerate(parts):
        value = int(part)
        if k == 0 and (value > hour_max or (twelve and value == 0)):
            value = (1 if twelve else 0) + stream.below(hour_max if twelve else 24)
        elif k > 0 and value > 59:
            value = stream.below(60)
        fixed.append(f"{value:0{len(part)}d}")
    if compact:
        return "".join(fixed)
    head = ":".join(fixed)
    m = _TIME_PARTS.match(text)
    assert m is not None
    return head + text[m.end() :]
