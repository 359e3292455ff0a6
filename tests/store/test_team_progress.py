"""Done, left, pace and last active per person and queue (``reviewer.services.team``), on both
backends, and ``rubricate queue progress --format json`` giving exactly those figures in the
shape docs/formats.md documents."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.services.team import team_progress
from reviewer.store import Store
from tests.cli import run_cli
from tests.tui.team_work import at, work

REF = "general-quality@1.0.0"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "formats.md"


def _team(store: Store, tmp_path: Path) -> None:
    """Ten items; ana works a stretch at 7:00 and three items from 9:00 to 9:25, bob one item
    from 8:00 to 8:30 and skips one at 8:40; carol is registered and has not started."""
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps({"id": f"i{i}", "output": f"answer {i}"}) + "\n" for i in range(10)))
    import_file(store, path, REF)
    store.roles.add_reviewer("carol", "lead")
    work(store, "ana", at(7, 0), at(7, 5))
    for start in (0, 10, 20):
        work(store, "ana", at(9, start), at(9, start + 5))
    work(store, "bob", at(8, 0), at(8, 30))
    work(store, "bob", at(8, 35), at(8, 40), skip=True)


def test_done_left_pace_and_last_active_per_person(store: Store, tmp_path: Path) -> None:
    _team(store, tmp_path)
    rows = {(r["reviewer"], r["queue"]): r for r in team_progress(store)}
    assert set(rows) == {("ana", "triage"), ("bob", "triage"), ("carol", "triage")}  # no audit sample, no safety work
    ana, bob, carol = rows["ana", "triage"], rows["bob", "triage"], rows["carol", "triage"]
    # ana's last stretch: three items from 9:00 to 9:25 (the 7:00 item is more than 30 minutes before)
    assert (ana["done"], ana["stretch_items"], ana["pace_per_hour"]) == (4, 3, 7.2)
    assert ana["last_active"] == "2026-03-02T09:25:00Z"
    # five items are done by someone: five left for ana and carol, four for bob (he skipped one)
    assert (ana["left"], bob["left"], carol["left"]) == (5, 4, 5)
    assert (bob["done"], bob["stretch_items"], bob["pace_per_hour"]) == (1, 1, 2.0)
    assert bob["last_active"] == "2026-03-02T08:40:00Z"  # a skip is activity too
    assert (carol["done"], carol["pace_per_hour"], carol["last_active"]) == (0, None, None)


def test_the_rubric_narrows_the_figures(store: Store, tmp_path: Path) -> None:
    _team(store, tmp_path)
    import_file(store, Path(__file__).resolve().parents[2] / "reviewer" / "demo" / "rag-answer.jsonl", "rag-answer")
    other = store.ratings.rubrics_with_items()
    rag = next(r for r in other if r.startswith("rag-answer"))
    rows = team_progress(store, rag)
    assert all(r["done"] == 0 and r["last_active"] is None for r in rows)
    assert {r["reviewer"] for r in rows} == {"ana", "bob", "carol"}


def test_queue_progress_json_is_the_service_and_the_documented_shape(store: Store, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _team(store, tmp_path)
    url = store.db.engine.url.render_as_string(hide_password=False)
    code, out, err = run_cli(["queue", "progress", "--format", "json", "--db", url], capsys)
    assert code == 0, err
    got = json.loads(out)
    assert got == team_progress(store)
    section = DOCS.read_text().split("`queue progress", 1)[1].split("\n", 1)[0]
    documented = re.findall(r"`([a-z_]+)`(?= \(|,)", section)  # each key is followed by its meaning or the next
    assert documented and all(set(row) == set(documented) for row in got)
    code, out, _ = run_cli(["queue", "progress", "--db", url], capsys)
    assert code == 0 and "7.2" in out and "2026-03-02 09:25:00" in out


def test_an_unknown_rubric_is_one_line(store: Store, capsys: pytest.CaptureFixture[str]) -> None:
    url = store.db.engine.url.render_as_string(hide_password=False)
    code, out, err = run_cli(["queue", "progress", "--rubric", "nothing-here@1.0.0", "--db", url], capsys)
    assert code != 0 and not out and len(err.strip().splitlines()) == 1


def test_accept_rates_per_person_and_queue_are_the_hand_counted_ones(store: Store, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """carol (the lead) reviews: ana's three triage scores — two accepted, one rejected; bob's
    triage score rejected, then accepted (the latest verdict counts), his audit score accepted,
    and one of his triage scores left unreviewed. In ``queue progress --format json`` and its table."""
    _team(store, tmp_path)
    pks = [r.item_pk for r in store.queue.queue_page("triage", rubric_ref=REF)]

    def score(who: str, pk: int, sample: str) -> int:
        return store.scores.add_human_score(pk, "clarity", who, 5.0, sample=sample)

    ana = [score("ana", pks[i], "triage") for i in range(3)]
    bob_triage, bob_audit, bob_left = score("bob", pks[3], "triage"), score("bob", pks[4], "audit"), score("bob", pks[5], "triage")
    reviews = store.lead_reviews
    reviews.accept(ana[0], "carol")
    reviews.accept(ana[1], "carol")
    reviews.reject(ana[2], "carol", 2.0, "the reason does not match the score")
    reviews.reject(bob_triage, "carol", 3.0, "too lenient")
    reviews.accept(bob_triage, "carol")
    reviews.accept(bob_audit, "carol")
    assert bob_left not in {r.score_pk for r in reviews.walk("bob", "carol") if r.verdict}
    url = store.db.engine.url.render_as_string(hide_password=False)
    code, out, err = run_cli(["queue", "progress", "--format", "json", "--db", url], capsys)
    assert code == 0, err
    got = {(r["reviewer"], r["queue"]): (r["lead_reviewed"], r["lead_accepted"]) for r in json.loads(out)}
    assert got == {("ana", "triage"): (3, 2), ("bob", "triage"): (1, 1), ("bob", "audit"): (1, 1),
                   ("carol", "triage"): (0, 0)}
    code, out, _ = run_cli(["queue", "progress", "--db", url], capsys)
    assert code == 0 and "accepted" in out
    lines = {tuple(line.split()[1:3]): line for line in out.splitlines() if "│" in line and line.split()[1:2] != ["reviewer"]}
    assert lines["ana", "│"].rstrip(" │").endswith("2/3") and lines["carol", "│"].rstrip(" │").endswith("—")
