"""Comments on an item: append-only and signed like scores, stamped with the content revision,
and exported with every score's provenance (reason, tags, time, blind, revision). On SQLite and
PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from reviewer.domain.itemlimits import MAX_COMMENT_CHARS
from reviewer.errors import UserError
from reviewer.store import Store, open_store
from tests.hostile.dbs import Raw, refused
from tests.hostile.harness import unguarded_true
from tests.store.helpers import CAPITAL, cap_item

REF = "general-quality@1.0.0"
DIMS = ("accuracy", "relevance", "completeness", "conciseness", "clarity")


def _write(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _item(store: Store, tmp_path: Path, output: str = CAPITAL, update: bool = False) -> int:
    return cap_item(store, tmp_path, output, update, judge=dict.fromkeys(DIMS, 8))


def _target(db_url: str) -> tuple[str, str]:
    """(backend, what :class:`Raw` connects to) for the fixture's URL."""
    if "://" not in db_url:
        return "sqlite", db_url
    return "postgres", db_url.split("search_path%3D", 1)[1]


def test_a_comment_is_stored_with_its_author_revision_and_time(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    first = store.comments.add_comment(pk, "lee", "  the capital is right, but cite a source  ")
    _item(store, tmp_path, "Paris is the capital of Germany.", update=True)  # revision 2
    second = store.comments.add_comment(pk, "lee", "now it is wrong")
    [a, b] = store.comments.comments([pk])[pk]
    assert (a.pk, a.reviewer, a.text, a.revision) == (first, "lee", "the capital is right, but cite a source", 1)
    assert (b.pk, b.revision) == (second, 2)
    assert a.created_at is not None and b.created_at is not None and a.created_at <= b.created_at
    assert store.comments.comments([pk + 99]) == {pk + 99: []}


@pytest.mark.parametrize("text, problem", [
    ("", "empty"), ("   \n ", "empty"), ("x" * (MAX_COMMENT_CHARS + 1), f"at most {MAX_COMMENT_CHARS}"),
    ("bad \ud800 text", "lone surrogate"),
])
def test_a_bad_comment_is_refused_in_one_line_and_nothing_is_written(store: Store, tmp_path: Path, text: str,
                                                                     problem: str) -> None:
    pk = _item(store, tmp_path)
    with pytest.raises(UserError, match=problem):
        store.comments.add_comment(pk, "lee", text)
    with pytest.raises(UserError, match="no item with key"):
        store.comments.add_comment(pk + 99, "lee", "fine text")
    assert store.comments.comments([pk])[pk] == []


def test_hostile_text_is_kept_as_written(store: Store, tmp_path: Path) -> None:
    """Stored exactly (it is shown safe wherever it is shown, see the CLI and TUI tests)."""
    pk = _item(store, tmp_path)
    text = "\x1b]0;pwned\x07[link=http://evil.example]click[/link] \u202eevil"
    store.comments.add_comment(pk, "lee", text)
    assert store.comments.comments([pk])[pk][0].text == text


def test_comments_are_append_only_in_the_database(store: Store, db_url: str, tmp_path: Path) -> None:
    """A raw UPDATE or DELETE of a comment is refused by the database's trigger; the same
    statements succeed once the triggers are dropped (what the guard prevents)."""
    pk = _item(store, tmp_path)
    store.comments.add_comment(pk, "lee", "the original comment")
    backend, target = _target(db_url)
    for sql in ("UPDATE item_comment SET text = 'forged'", "DELETE FROM item_comment"):
        raw = Raw(backend, target)
        try:
            with pytest.raises(refused(backend), match="append-only"):
                raw.run(sql)
        finally:
            raw.close()
    assert [c.text for c in store.comments.comments([pk])[pk]] == ["the original comment"]
    raw = Raw(backend, target)
    try:
        if backend == "sqlite":
            for name in ("item_comment_no_update", "item_comment_no_delete"):
                raw.run(f"DROP TRIGGER {name}")
        else:
            raw.run("DROP TRIGGER item_comment_no_change ON item_comment")
        unguarded_true(raw.run("UPDATE item_comment SET text = 'forged'") == 1)()
        unguarded_true(raw.run("DELETE FROM item_comment") == 1)()
    finally:
        raw.close()  # rolled back: the triggers and the comment stay


def test_a_database_made_before_comments_gets_the_table_and_its_guards(tmp_path: Path) -> None:
    """A file migrated by the release before ``0008c_comments`` (no comment table) opens, gets
    the table, and its guards refuse an UPDATE."""
    db = str(tmp_path / "old.db")
    open_store(db).close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE item_comment")
        conn.execute("DELETE FROM schema_migrations WHERE name = '0008c_comments'")
    store = open_store(db)
    try:
        pk = _item(store, tmp_path)
        store.comments.add_comment(pk, "lee", "after the upgrade")
    finally:
        store.close()
    with sqlite3.connect(db) as conn, pytest.raises(sqlite3.DatabaseError, match="append-only"):
        conn.execute("UPDATE item_comment SET text = 'x'")


def test_export_carries_every_scores_provenance_and_the_comments(store: Store, tmp_path: Path) -> None:
    pk = _item(store, tmp_path)
    store.roles.add_reviewer("lee", "lead")
    store.scores.add_human_score(pk, "accuracy", "ana", 3.0, blind=True)
    store.scores.add_human_score(pk, "accuracy", "ana", 4.0, reason="one claim is unsupported",
                          tags=["judge_too_lenient"], kind="revision")
    store.scores.add_human_score(pk, "clarity", "bo", 9.0, reason="clear", tags=["x"])
    store.scores.add_human_score(pk, "accuracy", "lee", 5.0, kind="adjudication", reason="settled")
    store.comments.add_comment(pk, "ana", "=HYPERLINK(\"http://evil.example\")")
    [row] = store.items.export_rows(REF)
    assert row["revision"] == 1
    acc = row["dimensions"]["accuracy"]
    assert acc["human"] == {"ana": 4.0} and acc["adjudication"] == 5.0  # the old keys, unchanged
    ana, lee = acc["human_scores"]
    assert {k: ana[k] for k in ("reviewer", "score", "kind", "reason", "tags", "blind", "blind_score",
                                "revision", "current_revision")} == {
        "reviewer": "ana", "score": 4.0, "kind": "revision", "reason": "one claim is unsupported",
        "tags": ["judge_too_lenient"], "blind": False, "blind_score": 3.0, "revision": 1, "current_revision": True}
    assert ana["created_at"].endswith("+00:00") and ana["created_at"][:2] == "20"
    assert (lee["reviewer"], lee["kind"], lee["score"], lee["reason"]) == ("lee", "adjudication", 5.0, "settled")
    assert row["dimensions"]["clarity"]["human_scores"][0]["tags"] == ["x"]
    assert row["dimensions"]["relevance"]["human_scores"] == []
    [c] = row["comments"]
    assert (c["author"], c["text"], c["revision"], c["current_revision"]) == (
        "ana", "=HYPERLINK(\"http://evil.example\")", 1, True)
    assert c["created_at"].endswith("+00:00")

    _item(store, tmp_path, "Paris is the capital of Germany.", update=True)  # revision 2
    store.scores.add_human_score(pk, "accuracy", "bo", 1.0)
    [row] = store.items.export_rows(REF)
    acc = row["dimensions"]["accuracy"]
    assert row["revision"] == 2 and acc["human"] == {"bo": 1.0}
    assert [(h["reviewer"], h["revision"], h["current_revision"]) for h in acc["human_scores"]] == [
        ("bo", 2, True), ("ana", 1, False), ("lee", 1, False)]
    assert [(c["revision"], c["current_revision"]) for c in row["comments"]] == [(1, False)]
