"""Import, view, human scores, safety decisions and export on both backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from tests.store.conftest import DEMO

ALL_DEMO = {"general-quality.jsonl": "general-quality@1.0.0", "rag-answer.jsonl": "rag-answer@1.0.0",
            "reval-issue-framing.jsonl": "reval-issue-framing@1.0.0"}


def test_every_demo_file_imports_and_reimport_changes_nothing(store: Store) -> None:
    for name, ref in ALL_DEMO.items():
        first = import_file(store, DEMO / name, ref, dataset="demo")
        assert first.inserted == first.rows > 0
        again = import_file(store, DEMO / name, ref, dataset="demo")
        assert (again.inserted, again.updated, again.unchanged) == (0, 0, again.rows)
        assert again.judge_scores == again.human_scores == 0
    assert store.queue.queue_count("triage") == 123


def test_changed_item_is_refused_unless_update(demo_store: Store, tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (DEMO / "general-quality.jsonl").read_text().splitlines()]
    rows[0]["output"] = "A different answer."
    changed = tmp_path / "changed.jsonl"
    changed.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(UserError, match=r"changed.jsonl:1: item gq-001 already exists with other content"):
        import_file(demo_store, changed, "general-quality@1.0.0", dataset="demo")
    summary = import_file(demo_store, changed, "general-quality@1.0.0", dataset="demo", update_existing=True)
    assert summary.updated == 1
    pk = demo_store.queue.queue_page("triage", search="gq-001")[0].item_pk
    assert demo_store.items.item_view(pk).output == "A different answer."


def test_human_scores_sit_beside_the_judge_and_undo_is_a_row(demo_store: Store) -> None:
    claim = demo_store.queue.claim_next("triage", "zoe")
    assert claim is not None
    view = demo_store.items.item_view(claim.item_pk, "zoe")
    judge_before = view.judge["accuracy"][-1].score
    demo_store.scores.add_human_score(claim.item_pk, "accuracy", "zoe", 2.0, reason="wrong date")
    demo_store.scores.add_human_score(claim.item_pk, "accuracy", "zoe", None, kind="undo")
    view = demo_store.items.item_view(claim.item_pk, "zoe")
    assert view.judge["accuracy"][-1].score == judge_before  # the judge's score is untouched
    assert "zoe" not in view.human.get("accuracy", {})
    assert [h.kind for h in view.history] == ["score", "undo"]
    with pytest.raises(UserError, match="off accuracy's scale"):
        demo_store.scores.add_human_score(claim.item_pk, "accuracy", "zoe", 11.0)


def test_peers_are_hidden_until_the_viewer_has_scored(demo_store: Store) -> None:
    pk = next(r.item_pk for r in demo_store.queue.queue_page("triage")
              if demo_store.items.item_view(r.item_pk).human.get("accuracy"))
    assert demo_store.items.item_view(pk, "newcomer").human.get("accuracy") == {}
    demo_store.scores.add_human_score(pk, "accuracy", "newcomer", 5.0)
    assert len(demo_store.items.item_view(pk, "newcomer").human["accuracy"]) >= 2


def test_safety_decision_needs_role_and_reason_and_signoffs(store: Store) -> None:
    import_file(store, DEMO / "general-quality.jsonl", "general-quality@1.0.0")
    pk = store.queue.queue_page("triage", limit=1)[0].item_pk
    flag = store.safety.flag_item(pk, "zoe")  # (a name of her own: ana's came with the import)
    assert store.queue.queue_count("safety") == 1
    with pytest.raises(UserError, match="does not hold the safety role"):
        store.safety.add_safety_decision(flag, "zoe", "clear", "false positive")
    store.roles.add_reviewer("lee", "lead")  # the store's first lead, who grants the other roles
    store.roles.add_reviewer("sam", "safety")
    with pytest.raises(UserError, match="needs a reason"):
        store.safety.add_safety_decision(flag, "sam", "clear", "  ")
    assert store.safety.add_safety_decision(flag, "sam", "clear", "a refusal, not advice") == "cleared"
    assert store.queue.queue_count("safety") == 0


def test_export_round_trip_reproduces_effective_scores(demo_store: Store, tmp_path: Path) -> None:
    exported = list(demo_store.items.export_rows("general-quality@1.0.0"))
    lines = []
    for row in exported:  # back into the import format: effective scores as one reviewer's
        human = {d: v["effective"] for d, v in row["dimensions"].items() if v["effective"] is not None}
        lines.append(json.dumps({"id": row["id"], "output": "x",  # a mean of people, said so
                                 "human": [{"reviewer": "consensus", "aggregate": True, "scores": human}]}))
    path = tmp_path / "round.jsonl"
    path.write_text("\n".join(lines) + "\n")
    fresh = open_store(str(tmp_path / "fresh.db"))
    import_file(fresh, path, "general-quality@1.0.0")
    again = {r["id"]: r for r in fresh.items.export_rows("general-quality@1.0.0")}
    for row in exported:
        for dim, v in row["dimensions"].items():
            assert again[row["id"]]["dimensions"][dim]["effective"] == pytest.approx(v["effective"])
        assert again[row["id"]]["overall"] == pytest.approx(row["overall"])


def test_rubric_versions_are_immutable_and_bumps_checked(store: Store) -> None:
    from rubrics.library import bundled_paths
    from rubrics.loader import load_rubric_text

    text = next(p for p in bundled_paths() if p.stem == "general-quality").read_text()
    store.rubrics.get_rubric("general-quality@1.0.0")  # registers the bundled version
    changed_text = text.replace("weight: 0.35", "weight: 0.30").replace("weight: 0.10", "weight: 0.15")
    changed = load_rubric_text(changed_text, "gq.yaml")
    with pytest.raises(UserError, match="version 1.0.0 of general-quality is already used; bump it: the change requires a minor bump"):
        store.rubrics.add_rubric(changed, changed_text)
    patch_text = (text.replace("version: 1.0.0", "version: 1.0.1")
                  .replace("weight: 0.35", "weight: 0.30").replace("weight: 0.10", "weight: 0.15"))
    with pytest.raises(UserError, match="requires a minor bump"):
        store.rubrics.add_rubric(load_rubric_text(patch_text, "gq.yaml"), patch_text)
    minor_text = (text.replace("version: 1.0.0", "version: 1.1.0")
                  .replace("weight: 0.35", "weight: 0.30").replace("weight: 0.10", "weight: 0.15"))
    minor = load_rubric_text(minor_text, "gq.yaml")
    with pytest.raises(UserError, match="not the text that was validated"):
        store.rubrics.add_rubric(minor, text)  # the text stored must be the text validated
    assert store.rubrics.add_rubric(minor, minor_text) is True


def test_append_only_is_enforced_by_the_database(demo_store: Store) -> None:
    from sqlalchemy import text

    pk = demo_store.queue.queue_page("triage", limit=1)[0].item_pk
    demo_store.scores.add_human_score(pk, "accuracy", "zoe", 3.0)
    for sql in ("UPDATE human_score SET score = 9", "DELETE FROM human_score"):
        with pytest.raises(Exception, match="append-only"), demo_store.db.write() as conn:
            conn.execute(text(sql))
    # Without the guard the same statement goes through: the trigger is what refuses it.
    with demo_store.db.write() as conn:
        if demo_store.db.dialect == "sqlite":
            conn.execute(text("DROP TRIGGER human_score_no_update"))
        else:
            conn.execute(text("DROP TRIGGER human_score_no_change ON human_score"))
        assert conn.execute(text("UPDATE human_score SET score = 9")).rowcount > 0
