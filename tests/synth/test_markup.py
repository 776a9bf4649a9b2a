"""`radeid.synth.markup`: inline `[[CATEGORY|text]]` gold, stripped to exact spans, checked."""

from __future__ import annotations

from radeid.synth.markup import markup_problems, parse_markup


def test_markup_becomes_text_and_exact_spans() -> None:
    text, spans = parse_markup("Frau [[PATIENT|Jörg Müller]], geb. [[DATE|14.02.1941]].")
    assert text == "Frau Jörg Müller, geb. 14.02.1941."
    assert spans == [("PATIENT", 5, 16, "Jörg Müller"), ("DATE", 23, 33, "14.02.1941")]
    assert all(text[s:e] == surface for _, s, e, surface in spans)


def test_problems_name_bad_categories_and_unmarked_second_mentions() -> None:
    text, spans = parse_markup("[[NAME|Ann Lee]] saw Lee at [[HOSPITAL|Lee Clinic]].")
    assert text == "Ann Lee saw Lee at Lee Clinic."
    assert markup_problems("d", text, spans, generic={"clinic"}) == [
        "d: unknown category NAME",
        "d: unannotated mention of an annotated word at 12",
    ]
    text, spans = parse_markup("[[PATIENT|Ann Lovell]] called; Lovell was seen.")
    assert markup_problems("d", text, spans) == ["d: unannotated mention of an annotated word at 19"]
    assert markup_problems("d", *parse_markup("[[DATE|May 2020]] and May 2020 again.")) == []
