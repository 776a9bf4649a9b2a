"""A run over many patients keeps the replacer's per-patient caches bounded (memory stays flat)."""

from __future__ import annotations

from radeid import Category, Document, Span
from radeid.replace.surrogate import SurrogateReplacer
from radeid.replace.surrogate.keyed import SCOPE_CACHE_LIMIT


def test_per_patient_caches_stay_bounded_over_many_patients() -> None:
    replacer = SurrogateReplacer(b"k" * 32)
    text = "Seen by Jane Roe on 03/04/2019 with a Siemens scanner."
    spans = [Span(8, 16, Category.PATIENT), Span(20, 30, Category.DATE), Span(38, 45, Category.VENDOR)]
    outputs = set()
    for i in range(SCOPE_CACHE_LIMIT + 50):
        result = replacer.replace(Document(f"d{i}", text, patient_id=f"p{i}"), spans)
        outputs.add(result.text)
    # every patient got its own surrogates, and no cache grew past its bound
    assert len(outputs) > SCOPE_CACHE_LIMIT // 2
    assert len(replacer._letters) <= SCOPE_CACHE_LIMIT + 1
    assert len(replacer._shifts) <= SCOPE_CACHE_LIMIT + 1
    assert len(replacer._keyed._scopes) <= SCOPE_CACHE_LIMIT + 1
    # a patient seen again after the caches were cleared gets the same surrogates as before
    again = replacer.replace(Document("d-again", text, patient_id="p0"), spans).text
    first = SurrogateReplacer(b"k" * 32).replace(Document("d0", text, patient_id="p0"), spans).text
    assert again == first
