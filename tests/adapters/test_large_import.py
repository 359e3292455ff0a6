"""A converted file large enough for the store's forked reader (SQLite, a first import past
``PARALLEL_FROM_LINES`` rows): the child reads a converted source's records as it reads an item
file's lines — every row stored, a dimension the rubric lacks left out and said, and a bad last
record refusing the whole file with nothing written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import open_store
from reviewer.store.import_batches import PARALLEL_FROM_LINES
from rubrics.draft import draft_rubric
from rubrics.loader import load_rubric_text

N = PARALLEL_FROM_LINES + 5


def _result(i: int) -> dict[str, Any]:
    comps = [{"pass": i % 3 != 0, "score": (i % 5) / 4, "reason": f"r{i}",
              "assertion": {"type": "llm-rubric", "value": "helps", "metric": "helpfulness"}},
             {"pass": i % 2 == 0, "score": 1 if i % 2 == 0 else 0, "reason": "",
              "assertion": {"type": "icontains", "value": "x"}}]
    return {"id": f"r{i:06d}", "promptIdx": 0, "testIdx": i, "prompt": {"raw": f"q{i}"},
            "provider": {"id": "p"}, "response": {"output": f"a{i}"},
            "gradingResult": {"pass": True, "score": 1, "reason": "", "componentResults": comps}}


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "results.json"
    path.write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": [_result(i) for i in range(N)]}}))
    return path


def _store_with_rubric(db: Path, big: Path, only: str | None = None) -> tuple[Any, str]:
    opened = open_source(big, "promptfoo")
    assert opened.converted is not None
    text = draft_rubric(list(opened.converted.dimensions.values()), "big", "evals-team", big.name,
                        picks=(only,) if only else ())
    rubric = load_rubric_text(text)
    store = open_store(str(db))
    store.rubrics.add_rubric(rubric, text)
    return store, rubric.ref


def test_the_forked_reader_stores_every_converted_row(big: Path, tmp_path: Path) -> None:
    store, ref = _store_with_rubric(tmp_path / "t.db", big, only="helpfulness")
    opened = open_source(big, "promptfoo")
    summary = import_opened(store, opened, ref)
    assert summary.reader == "child"
    assert (summary.inserted, summary.judge_scores) == (N, N)  # helpfulness only: icontains has no home
    assert opened.notes == [f"scores on 'icontains': the rubric {ref} has no such dimension"]
    (pk, _, _), = store.items.items_by_id(f"r{N - 1:06d}")
    judge = store.items.item_view(pk).judge["helpfulness"][0]
    assert (judge.score, judge.rationale) == (((N - 1) % 5) / 4, f"r{N - 1}")
    store.close()


def test_a_bad_last_record_refuses_the_file(big: Path, tmp_path: Path) -> None:
    store, ref = _store_with_rubric(tmp_path / "t.db", big)
    doc = json.loads(big.read_text())
    doc["results"]["results"][-1]["gradingResult"]["componentResults"][0]["score"] = 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "promptfoo"), ref)
    assert f"{bad}:results.results[{N - 1}]: item r{N - 1:06d}: judge helpfulness: score 3 is off the scale 0–1" \
        in str(err.value)
    assert list(store.items.export_rows()) == []
    store.close()
