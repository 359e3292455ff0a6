"""The product's own text (docstrings, comments, messages) cites only what the repository holds:
no design document or decision record from outside it, and every ``docs/*.md`` it names exists.
A rule is stated where it is used, or in docs/."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("reviewer", "rubrics", "calibration")
#: Names of documents that are not in the repository.
ABSENT = re.compile(r"DESIGN\.md|\bADR-?\d+|\bshared/")
DOCS = re.compile(r"\bdocs/[\w.-]+\.md")


def _sources() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def test_no_citation_of_a_document_outside_the_repository() -> None:
    found = [f"{p.relative_to(ROOT)}:{n}: {m.group()}" for p in _sources()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
             for m in ABSENT.finditer(line)]
    assert found == []


def test_every_docs_file_named_exists() -> None:
    named = {m.group() for p in _sources() for m in DOCS.finditer(p.read_text(encoding="utf-8"))}
    assert named and not [d for d in sorted(named) if not (ROOT / d).is_file()]
