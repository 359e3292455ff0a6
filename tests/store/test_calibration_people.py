"""The people figures of the calibration report, from rows a real store holds (both backends):
anchoring from blind scores and their revisions, adjudication, per-reviewer figures, and the
disagreement pack `rubricate calibrate --disagreements` writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from reviewer.services.calibrate_service import calibrate, disagreement_pack
from reviewer.services.importing import import_file
from reviewer.store import Store
from tests.cli import run_cli
from tests.store.conftest import DEMO

REF = "general-quality@1.0.0"


def _items(store: Store, tmp_path: Path, n: int = 6) -> list[int]:
    rows = [{"id": f"p{i}", "input": "q", "output": f"answer {i}",
             "judge": {"model": "m", "scores": {"accuracy": {"score": 8, "rationale": f"why {i}", "samples": [7, 9]}}}}
            for i in range(n)]
    path = tmp_path / "people.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    import_file(store, path, REF, dataset="people")
    return [r.item_pk for r in store.queue.queue_page("triage", REF, "people", limit=n)]


def test_anchoring_adjudication_and_reviewers(store: Store, tmp_path: Path) -> None:
    pks = _items(store, tmp_path)
    for pk in pks[:4]:  # ana scores blind at 4, then revises to 6 after seeing the judge's 8
        store.scores.add_human_score(pk, "accuracy", "ana", 4, blind=True)
        store.scores.add_human_score(pk, "accuracy", "ana", 6, kind="revision")
    for pk in pks:
        store.scores.add_human_score(pk, "accuracy", "bo", 8)
    store.roles.add_reviewer("lee", "lead")  # an adjudication needs the lead role (the store's first lead)
    store.scores.add_human_score(pks[0], "accuracy", "lee", 7, kind="adjudication")
    dim = calibrate(store, REF, "people", draws=50)["dimensions"][0]
    assert dim["dimension"] == "accuracy"
    assert dim["anchoring"] == {"n": 4, "moved_toward": 1.0, "moved_away": 0.0, "gap_closed": 0.5}
    assert dim["adjudicated"]["n"] == 1 and dim["adjudicated"]["judge_mae"] == 1.0
    rev = {r["reviewer"]: r for r in dim["reviewers"]}
    assert rev["ana"]["n"] == 4 and rev["ana"]["bias"] == -2.0  # 6 against bo's 8
    assert dim["judge_spread"]["sample_std"] == pytest.approx(2 ** 0.5)  # samples 7 and 9, n - 1
    blind = calibrate(store, REF, "people", sample="blind", draws=50)["dimensions"][0]
    assert {r["reviewer"] for r in blind["reviewers"]} == {"ana"}  # only scores given blind count


def test_disagreement_pack_carries_reasons_and_tags(store: Store, tmp_path: Path) -> None:
    pks = _items(store, tmp_path, 3)
    store.scores.add_human_score(pks[0], "accuracy", "ana", 2, reason="the date is wrong", tags=["judge_missed_error"])
    store.scores.add_human_score(pks[1], "accuracy", "ana", 7)
    pack = [p for p in disagreement_pack(store, REF, top=5) if p["dimension"] == "accuracy"]
    assert [p["item_id"] for p in pack] == ["p0", "p1"]  # largest gap first
    first = pack[0]
    assert first["gap"] == 6.0 and first["output"] == "answer 0"
    assert first["judge_rationale"][0]["rationale"] == "why 0"
    assert first["humans"]["ana"] == {"score": 2.0, "reason": "the date is wrong", "tags": ["judge_missed_error"],
                                      "blind": False}


def test_the_pack_reads_its_items_at_once_and_shows_them_as_the_item_view_does(store: Store, tmp_path: Path) -> None:
    pks = _items(store, tmp_path, 8)
    for i, pk in enumerate(pks):
        store.scores.add_human_score(pk, "accuracy", "ana", 1 + i % 5, reason=f"r{i}")
    selects: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            selects.append(statement)

    event.listen(store.db.engine, "before_cursor_execute", seen)
    try:
        two = disagreement_pack(store, REF, top=2)
        n_two, selects[:] = len(selects), []
        eight = disagreement_pack(store, REF, top=8)
    finally:
        event.remove(store.db.engine, "before_cursor_execute", seen)
    assert len(two) == 2 and len(eight) == 8
    assert len(selects) == n_two  # as many reads for eight items as for two: none per item
    for p in eight:
        view = store.items.item_view(next(pk for pk in pks if store.items.item_view(pk).item_id == p["item_id"]))
        assert p["output"] == view.output and p["input"] == view.input
        assert p["judge_rationale"] == [{"model": j.model, "score": j.score, "rationale": j.rationale,
                                         "evidence": list(j.evidence)} for j in view.judge["accuracy"]]
        assert p["humans"]["ana"]["reason"] == view.human["accuracy"]["ana"].reason


def test_the_cli_writes_the_pack_and_refuses_a_bad_normalise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "cli.db")
    assert run_cli(["import", str(DEMO / "general-quality.jsonl"), "--rubric", REF, "--db", db], capsys)[0] == 0
    out = tmp_path / "pack.jsonl"
    code, _, err = run_cli(["calibrate", "--rubric", REF, "--disagreements", str(out), "--top", "2",
                            "--normalise", "z", "--format", "json", "--db", db], capsys)
    assert code == 0, err
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert lines and all(x["rank"] <= 2 for x in lines) and {"judge_rationale", "humans"} <= set(lines[0])
    code, _, err = run_cli(["calibrate", "--rubric", REF, "--normalise", "q", "--db", db], capsys)
    assert code == 1 and err.strip() == "error: --normalise 'q': use none or z"


def test_versions_compare_side_by_side_with_a_banner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "versions.db")
    text = (Path(__file__).resolve().parents[2] / "rubrics" / "library" / "general-quality.yaml").read_text()
    newer = tmp_path / "gq-1.1.0.yaml"
    newer.write_text(text.replace("version: 1.0.0", "version: 1.1.0").replace("weight: 0.35", "weight: 0.30")
                     .replace("weight: 0.10", "weight: 0.15"))
    assert run_cli(["rubric", "add", str(newer), "--db", db], capsys)[0] == 0
    for ref in (REF, "general-quality@1.1.0"):
        assert run_cli(["import", str(DEMO / "general-quality.jsonl"), "--rubric", ref, "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["calibrate", "--rubric", REF, "--compare", "general-quality@1.1.0", "--format", "json",
                              "--db", db], capsys)
    assert code == 0, err
    both = json.loads(out)
    assert both["like_for_like"] is False and both["banner"].startswith("NOT LIKE FOR LIKE")
    assert len(both["changes"]) == 2 and [r["rubric"] for r in both["reports"]] == [REF, "general-quality@1.1.0"]
    code, out, _ = run_cli(["calibrate", "--rubric", REF, "--compare", REF, "--format", "json", "--db", db], capsys)
    assert code == 0 and json.loads(out)["banner"] is None
    code, out, _ = run_cli(["calibrate", "--rubric", REF, "--compare", "general-quality@1.1.0", "--db", db], capsys)
    assert code == 0 and "NOT LIKE FOR LIKE" in out
    code, _, err = run_cli(["calibrate", "--rubric", REF, "--compare", "rag-answer@1.0.0", "--db", db], capsys)
    assert code == 1 and "are different rubrics" in err and len(err.strip().splitlines()) == 1


def test_without_rubric_calibrate_takes_the_only_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "one.db")
    assert run_cli(["import", str(DEMO / "rag-answer.jsonl"), "--rubric", "rag-answer@1.0.0", "--db", db], capsys)[0] == 0
    code, out, _ = run_cli(["calibrate", "--format", "json", "--db", db], capsys)
    assert code == 0 and json.loads(out)["rubric"] == "rag-answer@1.0.0"
    assert run_cli(["import", str(DEMO / "general-quality.jsonl"), "--rubric", REF, "--db", db], capsys)[0] == 0
    code, _, err = run_cli(["calibrate", "--db", db], capsys)
    assert code == 1 and err.strip() == ("error: name the rubric with --rubric ID@VERSION: the store has items for "
                                         "general-quality@1.0.0, rag-answer@1.0.0")
