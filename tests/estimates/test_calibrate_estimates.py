"""Corrected estimates through ``rubricate calibrate``: a judge on every item, people on an audit
sample. The figures are checked against calibration.ppi on arrays built from the file itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration import ppi
from tests.calibration.grouped_case import ranked_items
from tests.cli import run_cli

DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")
THRESHOLD = {"accuracy": 70, "relevance": 70, "completeness": 70, "conciseness": 60, "clarity": 70}


def _write(tmp: Path, n_items: int = 500, n_audit: int = 120, n_triage: int = 40, seed: int = 3,
           audit_flag: bool = True) -> tuple[Path, dict[str, dict[str, np.ndarray]]]:
    """Items with a biased judge on every dimension; people on ``n_audit`` items marked audit, and
    on ``n_triage`` more (triage-reviewed, scored harshly: used as labels they would drag the
    estimate down)."""
    rng = np.random.default_rng(seed)
    lines: list[str] = []
    truth: dict[str, dict[str, list[float]]] = {d: {"y": [], "yhat": [], "yu": []} for d in DIMS}
    for i in range(n_items):
        true = np.clip(np.rint(rng.normal(7.5, 1.6, len(DIMS))), 1, 10)
        judge = np.clip(np.rint(true + 1 + rng.normal(0, 1.0, len(DIMS))), 1, 10)
        item: dict[str, Any] = {"id": f"q{i:04d}", "output": f"answer {i}",
                "judge": {"model": "m", "scores": {d: float(s) for d, s in zip(DIMS, judge, strict=True)}}}
        audited, triaged = i < n_audit, n_audit <= i < n_audit + n_triage
        if audited or triaged:
            human = true if audited else np.ones(len(DIMS))
            item["human"] = [{"reviewer": "ana", "scores": {d: float(s) for d, s in zip(DIMS, human, strict=True)}}]
        if audited and audit_flag:
            item["audit"] = True
        for k, d in enumerate(DIMS):
            if audited:
                truth[d]["y"].append(true[k])
                truth[d]["yhat"].append(judge[k])
            else:
                truth[d]["yu"].append(judge[k])
        lines.append(json.dumps(item))
    path = tmp / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path, {d: {k: np.asarray(v, dtype=float) for k, v in t.items()} for d, t in truth.items()}


def _calibrate(db: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code, out, err = run_cli(["calibrate", "--rubric", "general-quality@1.0.0", "--format", "json",
                              "--db", db, *extra], capsys)
    assert code == 0, err
    report: dict[str, Any] = json.loads(out)
    return report


def test_dimension_estimates_use_audit_items_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, truth = _write(tmp_path)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    rep = _calibrate(db, capsys)
    for entry in rep["dimensions"]:
        t, e = truth[entry["dimension"]], entry["estimate"]
        assert e["n_labelled"] == 120  # the 40 triage-reviewed items are not labels...
        assert e["n_unlabelled"] == 380  # ...they count as unlabelled, with their judge score
        assert e["ppi"] == pytest.approx(ppi.ppi_mean(t["y"], t["yhat"], t["yu"]), abs=1e-9)
        lo, hi = ppi.ppi_mean_interval(t["y"], t["yhat"], t["yu"])
        assert e["ppi_ci"] == [pytest.approx(lo, abs=1e-9), pytest.approx(hi, abs=1e-9)]
        assert e["humans_only"] == pytest.approx(t["y"].mean())
        # The judge reads about one point high; the corrected mean takes it back.
        assert e["judge_only"] - e["ppi"] > 0.5
        assert e["ppi_ci"][1] - e["ppi_ci"][0] < e["humans_ci"][1] - e["humans_ci"][0]
        assert e["effective_labels"] > 120 and 0.0 <= e["lambda"] <= 1.0
        assert e["reason"] is None
    # --confidence changes the interval, not the point
    narrow = _calibrate(db, capsys, "--confidence", "0.8")["dimensions"][0]["estimate"]
    wide = rep["dimensions"][0]["estimate"]
    assert narrow["ppi"] == pytest.approx(wide["ppi"])
    assert narrow["ppi_ci"][1] - narrow["ppi_ci"][0] < wide["ppi_ci"][1] - wide["ppi_ci"][0]


def test_pass_rate_estimate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, truth = _write(tmp_path)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    rep = _calibrate(db, capsys, "--target-width", "0.05")
    p = rep["pass_rate_estimate"]

    def passes(scores: dict[str, np.ndarray], i: int) -> bool:
        return all((scores[d][i] - 1) / 9 * 100 >= THRESHOLD[d] for d in DIMS)

    y = np.array([passes({d: truth[d]["y"] for d in DIMS}, i) for i in range(120)], dtype=float)
    yhat = np.array([passes({d: truth[d]["yhat"] for d in DIMS}, i) for i in range(120)], dtype=float)
    yu = np.array([passes({d: truth[d]["yu"] for d in DIMS}, i) for i in range(380)], dtype=float)
    assert p["n_labelled"] == 120 and p["n_unlabelled"] == 380
    assert p["ppi"] == pytest.approx(ppi.ppi_mean(y, yhat, yu), abs=1e-9)
    assert p["judge_only"] == pytest.approx(np.concatenate([yhat, yu]).mean())
    assert p["more_labels_needed"] == ppi.labels_for_width(y, yhat, yu, 0.05)
    assert p["more_labels_needed"] > 0
    assert 0.0 <= p["ppi_ci"][0] <= p["ppi"] <= p["ppi_ci"][1] <= 1.0  # a fraction's interval stays in [0, 1]


def test_without_an_audit_sample_the_estimate_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _write(tmp_path, audit_flag=False)  # people scored 160 items, none of them at random
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    rep = _calibrate(db, capsys)
    e = rep["dimensions"][0]["estimate"]
    assert e["ppi"] is None and e["humans_only"] is None and e["n_labelled"] == 0
    assert "rubricate queue audit-sample" in e["reason"] and "\n" not in e["reason"]
    assert rep["pass_rate_estimate"]["ppi"] is None
    code, out, _ = run_cli(["calibrate", "--rubric", "general-quality@1.0.0", "--db", db], capsys)
    assert code == 0 and "no audit sample" in out


def test_a_small_audit_sample_is_estimated_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = _write(tmp_path, n_audit=12, n_triage=0)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    e = _calibrate(db, capsys)["dimensions"][0]["estimate"]
    assert e["ppi"] is not None and e["n_labelled"] == 12
    assert "fewer than 30" in e["reason"]


def test_audit_sample_drawn_in_the_store_counts_once_people_score_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from reviewer.store import open_store

    path, _ = _write(tmp_path, n_audit=0, n_triage=0)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    assert run_cli(["queue", "audit-sample", "--rubric", "general-quality@1.0.0", "--n", "40", "--seed", "1",
                    "--db", db], capsys)[0] == 0
    store = open_store(db)
    audit = sorted(store.queue.audit_pks("general-quality@1.0.0"))
    assert len(audit) == 40
    e = _calibrate(db, capsys)["dimensions"][0]["estimate"]
    assert e["n_labelled"] == 0 and e["ppi"] is None  # drawn, but nobody has scored it yet
    store.close()


def test_audit_flag_must_be_a_boolean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "output": "x", "audit": "yes"}\n')
    code, out, err = run_cli(["import", str(bad), "--rubric", "general-quality@1.0.0",
                              "--db", str(tmp_path / "s.db")], capsys)
    assert code == 1
    assert "bad.jsonl:1" in err and "'audit' must be true or false" in err


def test_the_database_count_and_the_folded_columns_agree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The unlabelled side counted in SQL (one run, no revision) equals the one folded from columns."""
    from reviewer.services import estimates
    from reviewer.store import open_store

    path, _ = _write(tmp_path)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    store = open_store(db)
    rubric = store.rubrics.get_rubric("general-quality@1.0.0")
    assert store.ratings.judge_score_totals(rubric.ref) is not None
    folds = estimates.audit_folds(store, rubric, None, "mean")
    fast = estimates.dimension_estimates(store, rubric, None, folds, 0.95, None)
    slow = estimates.dimension_estimates(store, rubric, None, folds, 0.95, None, count_in_db=False)
    for dim, e in fast.items():
        for key in ("judge_only", "ppi", "lambda", "n_unlabelled", "effective_labels"):
            assert e[key] == pytest.approx(slow[dim][key], rel=1e-9)
    store.close()


def test_report_leaderboard_corrected_where_the_judge_favours_one_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Model b is better, but the judge is lenient with model a only: by the judge a leads, by the
    corrected pass rates b does, and the report says the order changed."""
    rng = np.random.default_rng(5)
    lines = []
    truth: dict[str, dict[str, list[float]]] = {m: {"y": [], "yhat": [], "yu": []} for m in "abc"}
    for i in range(900):
        model = "abc"[i % 3]
        p_true = {"a": 0.35, "b": 0.6, "c": 0.1}[model]
        passes = rng.random() < p_true
        judge_pass = passes or (model == "a" and rng.random() < 0.6)
        score = 9.0 if judge_pass else 3.0
        item: dict[str, Any] = {"id": f"q{i}", "output": "x", "metadata": {"model": model},
                                "judge": {"model": "j", "scores": {d: score for d in DIMS}}}
        if i < 450:
            item["audit"] = True
            item["human"] = [{"reviewer": "ana", "scores": {d: 9.0 if passes else 3.0 for d in DIMS}}]
            truth[model]["y"].append(float(passes))
            truth[model]["yhat"].append(float(judge_pass))
        else:
            truth[model]["yu"].append(float(judge_pass))
        lines.append(json.dumps(item))
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["report", "--rubric", "general-quality@1.0.0", "--format", "json", "--db", db], capsys)
    assert code == 0, err
    board = json.loads(out)["corrected_leaderboard"]
    rows = {r["group"]: r for r in board["rows"]}
    assert [r["group"] for r in board["rows"]] == ["b", "a", "c"]
    assert rows["a"]["judge_rank"] == 1 and rows["b"]["judge_rank"] == 2
    assert set(board["order_changes"]) == {"a", "b"}
    for m, t in truth.items():
        assert rows[m]["ppi"] == pytest.approx(ppi.ppi_mean(t["y"], t["yhat"], t["yu"]), abs=1e-9)
    assert rows["c"]["rank_probability"] > 0.99
    code, out, _ = run_cli(["report", "--rubric", "general-quality@1.0.0", "--format", "markdown", "--db", db], capsys)
    assert "corrected order differs from the judge's for: b, a." in out


def test_calibrate_group_by_ranks_corrected_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines, truth = ranked_items(600, 200, "ab", DIMS, lambda i: 6.0 if i % 2 == 0 else 7.0, spread=1.2, flatter=2.0,
                                noise=0.8, top=10, seed=9)
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(lines) + "\n")
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    for by in ("metadata.model", "variant"):
        rep = _calibrate(db, capsys, "--group-by", by, "--sample", "all")
        ranking = {r["group"]: r for r in rep["dimensions"][0]["estimate"]["ranking"]}
        assert ranking["b"]["rank"] == 1 and ranking["a"]["judge_rank"] == 1  # the judge flatters a
        for m, t in truth.items():
            assert ranking[m]["ppi"] == pytest.approx(ppi.ppi_mean(t["y"], t["yhat"], t["yu"]), abs=1e-9)


def test_a_revised_item_sends_the_count_back_to_the_fold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """After `import --update` changes an item's content, its old judge scores are history: the
    database count would still hold them, so the estimate folds columns instead."""
    from reviewer.store import open_store

    path, _ = _write(tmp_path)
    db = str(tmp_path / "s.db")
    assert run_cli(["import", str(path), "--rubric", "general-quality@1.0.0", "--db", db], capsys)[0] == 0
    changed = tmp_path / "changed.jsonl"
    changed.write_text(json.dumps({"id": "q0499", "output": "a new answer"}) + "\n")
    assert run_cli(["import", str(changed), "--rubric", "general-quality@1.0.0", "--update", "--db", db], capsys)[0] == 0
    store = open_store(db)
    assert store.ratings.judge_score_totals("general-quality@1.0.0") is None
    store.close()
    e = _calibrate(db, capsys)["dimensions"][0]["estimate"]
    assert e["n_unlabelled"] == 379  # the changed item has no current judge score
