"""``calibrate`` on a rubric with pair verdicts: per judge model, its verdicts against the people's
majority, where the people's verdicts are the review screen's choices and imported ones together;
the export carries the verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from reviewer.services.calibrate_service import calibrate
from reviewer.services.importing import import_file
from reviewer.services.report_render import calibration_markdown
from reviewer.store import Store
from tests.store.conftest import DEMO

REF = "reval-issue-framing@1.0.0"


def _pairs_file(path: Path) -> Path:
    rows: list[dict[str, Any]] = [
        # pair 1: imported ana picks 01a; the screen's cy and dee (below) 01b: the majority is 01b
        {"pair": {"a": "frame-01a", "b": "frame-01b"}, "human": [{"reviewer": "ana", "winner": "a"}],
         "judge": {"model": "judge-x", "winner": "b", "rationale": "less loaded wording"}},
        # pair 2: imported ana picks 02a; the screen's cy (below) 02b: the people split
        {"pair": {"a": "frame-02b", "b": "frame-02a"}, "human": [{"reviewer": "ana", "winner": "b"}],
         "judge": {"model": "judge-x", "winner": "a", "rationale": "balanced"}},
        # pair 2 again, the other order: the judge picks the first shown again (a flip)
        {"pair": {"a": "frame-02a", "b": "frame-02b"}, "judge": {"model": "judge-x", "winner": "a"}},
        # pair 3: imported ana and ben pick 03a; the judge calls it a tie
        {"pair": {"a": "frame-03a", "b": "frame-03b"},
         "human": [{"reviewer": "ana", "winner": "a"}, {"reviewer": "ben", "winner": "a", "reason": "plainer"}],
         "judge": {"model": "judge-x", "winner": "tie"}},
        # another model, on pair 1 only
        {"pair": {"a": "frame-01a", "b": "frame-01b"}, "judge": {"model": "judge-y", "winner": "tie"}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_calibrate_reports_each_judge_against_screen_and_imported_verdicts(store: Store, tmp_path: Path) -> None:
    import_file(store, DEMO / "reval-issue-framing.jsonl", REF, dataset="demo")
    summary = import_file(store, _pairs_file(tmp_path / "pairs.jsonl"), REF, dataset="demo")
    assert (summary.pair_choices, summary.pair_judgments) == (4, 5)
    groups = store.scores.group_overalls(REF)
    (a1, _, _), (b1, _, _) = groups["frame-01"]
    (a2, _, _), (b2, _, _) = groups["frame-02"]
    store.roles.add_reviewer("lee", "lead")
    store.scores.add_pair_choice(a1, "cy", b1)
    store.scores.add_pair_choice(a1, "dee", b1)
    store.scores.add_pair_choice(a2, "cy", b2)

    report = calibrate(store, REF, draws=200)
    x = report["pair_verdicts"]["judge-x"]
    # four verdicts: 01b over 01a (majority 01b: agrees); 02b over 02a and 02a over 02b (people
    # split on pair 2: not compared); a tie on pair 3 (majority 03a: disagrees). Counted on the
    # imported verdicts alone pair 1's majority would be 01a and pair 2's 02a (4 compared); on the
    # screen's alone pair 2's would be 02b and pair 3 unjudged (3 compared).
    assert (x["n_verdicts"], x["n_compared"], x["split"], x["unjudged"]) == (4, 2, 2, 0)
    assert x["agreement"] == 0.5
    # κ in shown order (judge, people): (b,b), (tie,a): po 1/2; judge b 1, tie 1; people b 1, a 1:
    # pe = (0·1 + 1·1 + 1·0)/4 = 1/4, so κ = (1/2 − 1/4)/(3/4) = 1/3
    assert x["kappa"] == pytest.approx(1 / 3)
    assert x["tie_rate"] == 0.25
    assert x["n_decisive"] == 3
    assert x["a_share"] == pytest.approx(2 / 3)
    assert (x["n_both_orders"], x["flips"], x["flip_rate"]) == (1, 1, 1.0)
    y = report["pair_verdicts"]["judge-y"]
    assert (y["n_verdicts"], y["agreement"], y["tie_rate"], y["n_decisive"], y["a_share"]) == (1, 0.0, 1.0, 0, None)
    # the two-item groups' own figure counts the same people's verdicts: 4 imported + 3 from the screen
    assert report["pairs"]["n_choices"] == 7
    assert json.loads(json.dumps(report))["pair_verdicts"]["judge-x"]["flips"] == 1
    md = calibration_markdown(report)
    assert "pair verdicts, judge-x: agrees with the people's majority on 1 of 2 verdicts" in md
    assert "flips 1 of 1 pairs seen in both orders" in md

    exported = {r["id"]: r for r in store.items.export_rows(REF, "demo")}
    first = exported["frame-01a"]
    assert [(v["model"], v["a"], v["b"], v["winner"], v["rationale"]) for v in first["pair_verdicts"]] == [
        ("judge-x", "frame-01a", "frame-01b", "frame-01b", "less loaded wording"),
        ("judge-y", "frame-01a", "frame-01b", None, None)]
    assert sorted((c["reviewer"], c["winner"], c["kind"]) for c in first["pair_choices"]) == [
        ("ana", "frame-01a", "import"), ("cy", "frame-01b", "choice"), ("dee", "frame-01b", "choice")]
