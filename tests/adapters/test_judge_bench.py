"""JUDGE-BENCH datasets in: people's aggregate judgments as one aggregate score per metric on
both databases (individual scores kept in metadata, never invented reviewers), categorical labels
as labelled nominal levels, a broken file refused in one line, the shape recognised without
``--from``, and ``rubric init`` → ``rubric add`` → ``import`` → ``calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_opened, open_source
from reviewer.store import Store
from tests.adapters.conftest import DATA, calibration, drafted
from tests.cli import run_cli

FILE = DATA / "judge_bench.json"


def test_judgments_land_field_by_field(store: Store) -> None:
    ref, opened = drafted(store, FILE)
    assert (opened.format, opened.detected) == ("judge-bench", True)
    summary = import_opened(store, opened, ref)
    assert (summary.inserted, summary.human_scores, summary.judge_scores) == (3, 6, 0)
    assert opened.notes == ["individual scores name no annotator: kept in metadata.individual_human_scores; "
                            "the aggregate imported as one score (3×)"]
    (pk, _, _), = store.items.items_by_id("2")
    view = store.items.item_view(pk)
    assert view.output == "Read the manual, idiot."
    crowd = view.human["coherence"]["judge-bench-crowd"]
    assert (crowd.score, crowd.kind) == (3.0, "import")
    assert view.human["toxicity"]["judge-bench-crowd"].score == 1.0  # 'toxic', the second label
    meta = view.metadata
    assert (meta["source"], meta["dataset"]) == ("judge-bench", "Support replies (rubricate test set)")
    assert meta["individual_human_scores"] == {"coherence": [3, 3, 3], "toxicity": ["toxic", "toxic", "non-toxic"]}
    (pk1, _, _), = store.items.items_by_id("1")
    assert store.items.item_view(pk1).human["coherence"]["judge-bench-crowd"].score == pytest.approx(4.67)
    rubric = store.rubrics.get_rubric(ref)
    tox = next(d for d in rubric.dimensions if d.id == "toxicity")
    assert (tox.level, [a.label for a in tox.anchors]) == ("nominal", ["non-toxic", "toxic"])
    prompt = next(d for d in rubric.dimensions if d.id == "coherence").prompt
    assert prompt is not None and prompt.endswith("rate this reply. {output}")


def test_a_label_not_declared_is_refused_in_one_line(store: Store, tmp_path: Path) -> None:
    ref, _ = drafted(store, FILE)
    doc = json.loads(FILE.read_text())
    doc["instances"][1]["annotations"]["toxicity"]["majority_human"] = "rude"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(UserError) as err:
        import_opened(store, open_source(bad, "judge-bench"), ref)
    assert str(err.value) == (f"{bad}:instances[1].annotations.toxicity.majority_human: 'rude' is not one of "
                              "labels_list (non-toxic, toxic)")
    assert list(store.items.export_rows()) == []


def test_cli_init_add_import_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db, rubric = str(tmp_path / "t.db"), tmp_path / "jb.yaml"
    code, _, err = run_cli(["rubric", "init", "--from", str(FILE), "--from-format", "judge-bench", "--out",
                            str(rubric), "--id", "support-replies", "--owner", "evals-team"], capsys)
    assert code == 0, err
    assert run_cli(["rubric", "add", str(rubric), "--db", db], capsys)[0] == 0
    code, out, err = run_cli(["import", str(FILE), "--rubric", "support-replies@1.0.0", "--db", db], capsys)
    assert code == 0, err
    assert f"read {FILE} as judge-bench (recognised by its shape" in err
    assert "individual scores name no annotator" in err
    assert "3 new" in out
    dims = calibration(db, "support-replies@1.0.0", capsys)
    # people's judgments only: nothing to pair until `rubricate judge` scores the items
    assert dims["coherence"]["n"] == 0 and dims["toxicity"]["n"] == 0
    assert dims["coherence"]["null_reasons"]["alpha"] == "no item has both a judge score and a human score"
