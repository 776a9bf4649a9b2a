"""Issue 13: vendor mentions become invented, pronounceable brands of the same shape, as a whole."""

from __future__ import annotations

import re

import pytest
from surrogate_helpers import KEY, doc_with

from radeid import Category
from radeid.replace.surrogate import SurrogateReplacer
from radeid.replace.surrogate.brands import real_vendor_words
from radeid.replace.surrogate.keyed import fold

VEND = Category.VENDOR
GENERIC = {"PACS", "CT", "MRI", "Ultrasound", "System", "Healthcare"}


def replace(value: str, patient: str) -> str:
    doc, spans = doc_with(f"on a {value} unit", [(value, VEND)], patient_id=patient)
    (r,) = SurrogateReplacer(KEY).replace(doc, spans).replacements
    return r.new_text


def shape(token: str) -> str:
    """Digits as 9, capitals as A, small letters as a, runs collapsed."""
    return re.sub(r"(.)\1+", r"\1", re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", token))))


def pronounceable(word: str) -> bool:
    """No run of more than three consonants, and a vowel in every word of four letters or more."""
    letters = word.lower()
    return not re.search(r"[^aeiouy\W\d]{4,}", letters) and (len(letters) < 4 or bool(re.search(r"[aeiouy]", letters)))


@pytest.mark.parametrize(
    "vendor",
    ["Hologic 3Dimensions", "LOGIQ E9", "GE LOGIQ E10", "Siemens Healthineers", "Philips IntelliSpace PACS",
     "Siemens SOMATOM Force", "Canon Aquilion ONE", "PowerScribe 360"],
)  # fmt: skip
def test_vendor_mentions_become_invented_brands_of_the_same_shape(vendor: str) -> None:
    real = real_vendor_words()
    for patient in ("p1", "p2", "p3", "p4", "p5"):
        new = replace(vendor, patient)
        old_words, new_words = vendor.split(), new.split()
        assert len(old_words) == len(new_words), (vendor, new)
        for old, word in zip(old_words, new_words, strict=True):
            if old in GENERIC:
                assert word == old
                continue
            assert word != old and (word.isdigit() or fold(word) not in real), (vendor, new)  # no half-visible vendor
            assert re.sub(r"\d", "9", re.sub(r"[^\W\d_]", "a", word)).count("9") == re.sub(r"\D", "", old).__len__()
            assert word[:1].isupper() == old[:1].isupper() and word.isupper() == old.isupper(), (vendor, new)
            assert shape(word)[:2] == shape(old)[:2], (vendor, new)  # "3Dimensions" -> "4Spectra"
            assert all(pronounceable(run) for run in re.findall(r"[A-Za-z]{3,}", word)), (vendor, new)


def test_model_numbers_keep_their_shape() -> None:  # issue 13: LOGIQ E9 -> FDJVS X1, GE LOGIQ E10 -> GE BZYQR V04
    for patient in ("p1", "p2", "p3"):
        brand, model = replace("LOGIQ E9", patient).split()
        assert re.fullmatch(r"[A-Z]{5}", brand) and pronounceable(brand)
        assert re.fullmatch(r"[A-Z][1-9]", model)
        first, *_rest, last = replace("GE LOGIQ E10", patient).split()
        assert first != "GE" and re.fullmatch(r"[A-Z]{2}", first)
        assert re.fullmatch(r"[A-Z][1-9]\d", last)


TEN = ["Siemens", "Philips", "Canon", "Hologic", "Fujifilm", "Agfa", "Carestream", "Esaote", "Mindray", "Shimadzu"]


def _vendor_words() -> set[str]:
    from radeid.core.resources import bundled_data_path, read_word_list

    return {fold(w) for w in read_word_list(bundled_data_path("surrogates", "vendor_words.txt"))}


def test_ten_vendors_of_one_report_never_share_a_fake_for_many_keys() -> None:
    """Issue 28: `Siemens` and `Philips` both became `Quantivo` (28 of 50 keys merged a pair of
    ten vendors); now distinct vendors of one document get distinct fakes, for every key."""
    text = "Scanners: " + "; ".join(f"{v} unit" for v in TEN) + "."
    doc, spans = doc_with(text, [(v, VEND) for v in TEN])
    for k in range(50):
        news = [r.new_text for r in SurrogateReplacer(f"vendor-key-{k}".encode()).replace(doc, spans).replacements]
        assert len({fold(n) for n in news}) == len(TEN), (k, news)


def test_vendors_of_one_patient_never_share_a_fake_across_documents() -> None:
    """The lexicon's words map one to one within a scope, so separate reports agree too."""
    for k in range(20):
        replacer = SurrogateReplacer(f"vendor-key-{k}".encode())
        news = set()
        for i, vendor in enumerate(TEN):
            doc, spans = doc_with(f"on a {vendor} unit", [(vendor, VEND)], doc_id=f"d{i}")
            news.add(replacer.replace(doc, spans).replacements[0].new_text)
        assert len(news) == len(TEN)


@pytest.mark.parametrize(
    "vendor",
    ["Siemens MAGNETOM Vida", "Aidoc AI", "Canon Medical Systems Aquilion ONE", "Philips IntelliSpace Portal",
     "GE Healthcare", "Hologic 3Dimensions", "Nuance PowerScribe 360", "Konica Minolta"],
)  # fmt: skip
def test_vendor_fakes_are_invented_list_words_never_letter_salad_or_real(vendor: str) -> None:
    """Issue 28: no `KreKRRfieldas AI` or `Galvora GOFIAVA Fentrix`: every word of three letters
    or more is a word of the invented list (in the original's case), generic tails stay."""
    invented, real = _vendor_words(), real_vendor_words()
    for k in range(50):
        doc, spans = doc_with(f"on a {vendor} unit", [(vendor, VEND)])
        new = SurrogateReplacer(f"vendor-key-{k}".encode()).replace(doc, spans).replacements[0].new_text
        for old, word in zip(vendor.split(), new.split(), strict=True):
            if old in ("AI", "Medical", "Systems", "Healthcare", "Portal", "360"):
                assert word == old or old in ("Portal", "360"), (vendor, new)
                continue
            for run in re.findall(r"[A-Za-z]{3,}", word):
                if len(run) > 3 or not run.isupper():
                    assert fold(run) in invented and fold(run) not in real, (vendor, new)
            assert word.isupper() == old.isupper() and word[:1].isupper() == old[:1].isupper(), (vendor, new)
