"""``rubricate queue show ITEM`` and the export's provenance keys, through the real console entry
point on a real SQLite file: one item's whole state from its fold, hostile text never reaching
the terminal raw, one line for an unknown or ambiguous id."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import open_store
from tests.cli import run_cli
from tests.hostile.harness import EVERYTHING, one_line, raw_controls

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def _db(tmp_path: Path, output: str = "Paris is the capital of France.", datasets: tuple[str, ...] = ("march",)) -> str:
    db = str(tmp_path / "show.db")
    src = tmp_path / "items.jsonl"
    src.write_text(json.dumps({"id": "cap", "input": "Capital of France?", "output": output,
                               "judge": {"model": "judge-a", "scores": {d: {"score": 8, "rationale": "fine"}
                                                                        for d in DIMS}}}) + "\n")
    store = open_store(db)
    try:
        for ds in datasets:
            import_file(store, src, REF, dataset=ds)
        store.roles.add_reviewer("lee", "lead")
        store.roles.add_reviewer("sam", "safety")
        pk = store.items.items_by_id("cap", datasets[0])[0][0]
        store.scores.add_human_score(pk, "accuracy", "ana", 3.0, blind=True)
        store.scores.add_human_score(pk, "accuracy", "ana", 4.0, reason="one claim is unsupported",
                              tags=["judge_too_lenient"], kind="revision")
        store.scores.add_human_score(pk, "accuracy", "bo", 6.0)
        store.scores.add_human_score(pk, "accuracy", "lee", 5.0, kind="adjudication", reason="settled at 5")
        flag = store.safety.flag_item(pk, "lee", "names a private person")
        store.safety.add_safety_decision(flag, "sam", "escalate", "needs a second look")
        store.comments.add_comment(pk, "ana", "the source is a blog post")
    finally:
        store.close()
    return db


def test_queue_show_prints_the_whole_state_from_the_fold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path)
    code, out, err = run_cli(["queue", "show", "cap", "--db", db], capsys)
    assert code == 0, err
    assert "cap  dataset march · rubric general-quality@1.0.0 · revision 1" in out
    assert "Capital of France?" in out and "Paris is the capital of France." in out
    assert "accuracy: effective 5 (adjudication)  judge 8" in out
    assert "judge judge-a: 8 — fine" in out
    assert "ana: 4 (revision, blind score 3)" in out and "— one claim is unsupported [judge_too_lenient]" in out
    assert "bo: 6 (score)" in out and "lee: 5 (adjudication)" in out and "— settled at 5" in out
    assert "overall: 0.000" in out and "capped by: safety" in out  # the escalated flag caps it
    assert "safety: escalated" in out and "escalated, 0 of 1 login signed off" in out
    assert "sam: escalate (needs a second look)" in out
    assert "comments (1)" in out and "the source is a blog post" in out and " UTC" in out


def test_queue_show_json_is_the_fold_with_content_flags_and_comments(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path)
    code, out, _ = run_cli(["queue", "show", "cap", "--json", "--db", db], capsys)
    assert code == 0
    rec = json.loads(out)
    store = open_store(db)
    try:
        [exported] = store.items.export_rows(REF)
    finally:
        store.close()
    # the same fold as export: effective, overall, band, pass, incomplete, caps, safety
    for key in ("overall", "band", "passed", "incomplete", "capped_by", "judge_overall", "safety", "comments"):
        assert rec[key] == exported[key], key
    acc = rec["dimensions"]["accuracy"]
    assert (acc["effective"], acc["source"], acc["adjudication"]) == (5.0, "adjudication", 5.0)
    assert acc["judge_by_model"] == [{"model": "judge-a", "score": 8.0, "error": None, "rationale": "fine"}]
    assert [h["reviewer"] for h in acc["human_scores"]] == ["ana", "bo", "lee"]
    assert rec["output"] == "Paris is the capital of France." and rec["input"] == "Capital of France?"
    [flag] = rec["flags"]
    assert (flag["status"], flag["signoffs"], flag["decisions"][0]["decision"]) == ("escalated", "0 of 1 login",
                                                                                  "escalate")
    assert rec["comments"][0]["author"] == "ana"


def test_unknown_and_ambiguous_ids_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path, datasets=("march", "april"))
    code, out, err = run_cli(["queue", "show", "nope", "--db", db], capsys)
    assert code == 1 and out == "" and "no item with id 'nope'" in one_line(err)
    code, out, err = run_cli(["queue", "show", "cap", "--db", db], capsys)
    line = one_line(err)
    assert code == 1 and out == ""
    assert "is in 2 places: march (general-quality@1.0.0), april (general-quality@1.0.0)" in line
    assert "--dataset" in line
    code, out, err = run_cli(["queue", "show", "cap", "--dataset", "april", "--db", db], capsys)
    assert code == 0 and "dataset april" in out and "comments (0)" in out


def test_hostile_output_and_comment_never_reach_stdout_raw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The output and a comment carry escapes (clear screen, title, OSC 8 link), a bidi override
    and markup; stored as written, they are shown as placeholders, in text and JSON alike."""
    db = _db(tmp_path, output="output " + EVERYTHING)
    store = open_store(db)
    try:
        store.comments.add_comment(store.items.items_by_id("cap")[0][0], "ana", "comment " + EVERYTHING + "\nline two")
    finally:
        store.close()
    assert raw_controls(EVERYTHING)  # what would reach the terminal unguarded
    for extra in ([], ["--json"]):
        code, out, err = run_cli(["queue", "show", "cap", "--db", db, *extra], capsys)
        assert code == 0, err
        assert raw_controls(out) == [], extra
    code, out, _ = run_cli(["queue", "show", "cap", "--db", db], capsys)
    assert "output ␛]0;pwned␇␛[2J" in out and "comment ␛]0;pwned" in out and "⟨U+202E⟩" in out
    assert "[link=http://evil.example]" in out  # markup shown as text, never read
    assert "    line two" in out


def test_export_jsonl_and_csv_carry_the_new_keys(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path)
    store = open_store(db)
    try:
        store.comments.add_comment(store.items.items_by_id("cap")[0][0], "bo", "=1+1 looks like a formula")
    finally:
        store.close()
    code, out, _ = run_cli(["export", "--db", db], capsys)
    assert code == 0
    row = json.loads(out)
    assert row["revision"] == 1 and [c["author"] for c in row["comments"]] == ["ana", "bo"]
    ana = row["dimensions"]["accuracy"]["human_scores"][0]
    assert set(ana) == {"reviewer", "score", "kind", "reason", "tags", "created_at", "blind", "blind_score",
                        "revision", "current_revision"}
    assert row["dimensions"]["accuracy"]["human"] == {"ana": 4.0, "bo": 6.0}  # the old key, as it was
    code, out, _ = run_cli(["export", "--format", "csv", "--db", db], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    header = next(csv.reader(io.StringIO(out)))
    assert header[:17] == ["id", "dataset", "rubric", "dimension", "effective", "source", "judge", "judge_error",
                           "human", "overall", "band", "passed", "safety", "state", "adjudication", "bias",
                           "incomplete"]  # the old columns keep their places
    assert header[17:] == ["revision", "human_scores", "comments", "corrections"]  # new columns after the old ones
    acc = next(r for r in rows if r["dimension"] == "accuracy")
    assert acc["revision"] == "1"
    assert [h["reason"] for h in json.loads(acc["human_scores"])][0] == "one claim is unsupported"
    assert [c["text"] for c in json.loads(acc["comments"])][1] == "=1+1 looks like a formula"
    code, out, _ = run_cli(["export", "--format", "csv", "--labels", "--db", db], capsys)
    assert next(csv.reader(io.StringIO(out)))[17:] == ["revision", "human_scores", "comments", "corrections",
                                                       "effective_label", "judge_label", "human_labels"]


def test_json_text_escapes_what_a_terminal_acts_on_and_parses_back_the_same() -> None:
    from reviewer.safetext import json_text

    value = {"t": EVERYTHING + "\U000e0069 ok é 中文 \ud800", "n": 1}
    out = json_text(value)
    assert raw_controls(EVERYTHING) and raw_controls(out) == []
    assert json.loads(out) == value
    assert "é 中文" in out  # readable text stays readable
    assert raw_controls(json.dumps(value, ensure_ascii=False))  # what the plain dump would print
