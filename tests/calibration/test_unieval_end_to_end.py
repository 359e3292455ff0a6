"""UniEval's published judge–human correlations on Topical-Chat, end to end:
rubric → import file → ``rubricate import`` → ``rubricate calibrate --format json`` → 6 decimals."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from reviewer.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
PUBLISHED = json.loads((DATA / "agreement_vectors.json").read_text())["unieval_topical_chat"]["published"]


def to_import_format(src: Path, dst: Path) -> int:
    """UniEval's result file as rubricate's JSON Lines (human = the annotators' mean)."""
    rows = json.loads(src.read_text())
    with dst.open("w") as fh:
        for i, r in enumerate(rows):
            fh.write(json.dumps({
                "id": f"tc-{i:03d}", "input": r["source"], "output": r["system_output"],
                "context": r["context"], "metadata": {"system": r["system_id"]},
                "judge": {"model": "unieval", "scores": r["predict_scores"]},
                # a mean of three annotators lies between the scale's levels: said so, it is taken
                "human": [{"reviewer": "annotators", "aggregate": True, "scores": r["scores"]}],
            }) + "\n")
    return len(rows)


def cli(*argv: str) -> int:
    old = sys.argv
    sys.argv = ["rubricate", *argv]
    try:
        main()
        return 0
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.argv = old


def test_unieval_topical_chat_correlations(tmp_path: Path) -> None:
    db, items, out = tmp_path / "tc.db", tmp_path / "tc.jsonl", tmp_path / "cal.json"
    assert to_import_format(DATA / "unieval" / "topical_chat_result.json", items) == 360
    assert cli("rubric", "add", str(DATA / "topical-chat.yaml"), "--db", str(db)) == 0
    assert cli("import", str(items), "--rubric", "topical-chat@1.0.0", "--db", str(db)) == 0
    assert cli("calibrate", "--rubric", "topical-chat@1.0.0", "--format", "json", "--out", str(out),
               "--db", str(db)) == 0
    report = json.loads(out.read_text())
    got = {d["dimension"]: d for d in report["dimensions"]}
    for dim, (pearson, spearman, kendall) in PUBLISHED.items():
        assert got[dim]["n"] == 360
        assert round(got[dim]["pearson"], 6) == pytest.approx(pearson, abs=1e-12), dim
        assert round(got[dim]["spearman"], 6) == pytest.approx(spearman, abs=1e-12), dim
        assert round(got[dim]["kendall"], 6) == pytest.approx(kendall, abs=1e-12), dim
        # the judge scores on another scale: alpha is null with its reason, never a number
        assert got[dim]["alpha"] is None and "another scale" in got[dim]["null_reasons"]["alpha"]
    for key in ("rubric", "dataset", "sample", "group_by", "dimensions"):
        assert key in report
    for key in ("dimension", "n", "n_groups", "level", "alpha", "alpha_ci", "alpha_humans", "pearson",
                "spearman", "kendall", "kappa_linear", "kappa_quadratic", "exact", "within_one", "bias",
                "mae", "pass_agreement", "status"):
        assert key in report["dimensions"][0]


def test_group_by_unknown_metadata_key_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, items = tmp_path / "tc.db", tmp_path / "tc.jsonl"
    to_import_format(DATA / "unieval" / "topical_chat_result.json", items)
    cli("rubric", "add", str(DATA / "topical-chat.yaml"), "--db", str(db))
    cli("import", str(items), "--rubric", "topical-chat@1.0.0", "--db", str(db))
    capsys.readouterr()
    code = cli("calibrate", "--rubric", "topical-chat@1.0.0", "--group-by", "metadata.nope", "--db", str(db))
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(err) == 1 and "no item has metadata key 'nope'" in err[0]
    assert cli("calibrate", "--rubric", "topical-chat@1.0.0", "--group-by", "metadata.system",
               "--format", "json", "--out", str(tmp_path / "g.json"), "--db", str(db)) == 0
    grouped = json.loads((tmp_path / "g.json").read_text())["dimensions"][0]
    assert grouped["n_groups"] is not None and grouped["n_groups"] >= 1
