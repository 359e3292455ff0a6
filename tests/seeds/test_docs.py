"""The README sends readers only to documents inside the repository, and docs/formats.md names
every field the importer knows. (The old README pointed at DESIGN.md, which is not in the repo.)"""

from __future__ import annotations

import re
from pathlib import Path

from reviewer.io.itemfile import KNOWN_FIELDS

ROOT = Path(__file__).resolve().parents[2]


def test_readme_points_only_at_files_in_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "DESIGN.md" not in readme
    for doc in set(re.findall(r"`(docs/[\w./-]+\.md)`", readme)):
        assert (ROOT / doc).is_file(), doc
    assert "`docs/formats.md`" in readme


def test_formats_doc_names_every_import_field() -> None:
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    for heading in ("## Item import format", "## Export format", "## Calibration JSON"):
        assert heading in text
    missing = [f for f in sorted(KNOWN_FIELDS) if f"`{f}`" not in text]
    assert missing == []
