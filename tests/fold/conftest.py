"""A store on each backend with the fold-test rubric registered (two judged dimensions, one with a
ceiling; a weighted dimension only people score; an unweighted one; two safety sign-offs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from rubrics.loader import load_rubric_text
from tests.store.conftest import db_url  # noqa: F401  (the fixture: SQLite and PostgreSQL)

HERE = Path(__file__).resolve().parent
REF = "fold-test@1.0.0"


def as_(store: Store, who: str) -> Store:
    """The store acting as ``who``'s login, so that each person signs their own rows: on SQLite
    every name is bound to a login of the same name. On PostgreSQL the acting login is the
    connection's (the tables' owner, who may sign for anyone), so there every decision is one
    person's — a second sign-off needs a second database login."""
    if store.db.dialect == "sqlite":
        store.roles.act_as(who)
    return store


def _open(url: str) -> Store:
    s = open_store(url)
    text = (HERE / "fold-test.yaml").read_text(encoding="utf-8")
    s.rubrics.add_rubric(load_rubric_text(text, "fold-test.yaml"), text)
    as_(s, "lee").roles.add_reviewer("lee", "lead")  # the store's first lead grants the other roles
    for name, role in (("ana", "reviewer"), ("ben", "reviewer"), ("sam", "safety"), ("sol", "safety"),
                       ("viv", "safety")):
        s.roles.add_reviewer(name, role)
    return s


@pytest.fixture
def fstore(db_url: str) -> Iterator[Store]:  # noqa: F811
    s = _open(db_url)
    yield s
    s.close()


@pytest.fixture
def sqlite_fstore(tmp_path: Path) -> Iterator[Store]:
    """SQLite only: tests of sign-offs by two people (see :func:`as_`)."""
    s = _open(str(tmp_path / "store.db"))
    yield s
    s.close()


def add_items(store: Store, tmp: Path, items: list[dict[str, Any]], rubric: str = REF,
              dataset: str | None = None, update: bool = False) -> dict[str, int]:
    """Import ``items`` (JSON Lines records) and return item id → key."""
    path = tmp / f"items-{len(list(tmp.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    import_file(store, path, rubric, dataset, update_existing=update)
    return {e["id"]: e["pk"] for e in store.runs.items_for_judging(rubric, dataset)}


@pytest.fixture
def demo_all(db_url: str) -> Iterator[Store]:  # noqa: F811
    """The bundled demo database (three rubrics, an audit sample, reviewers' scores)."""
    from reviewer.demo.build import build_demo

    build_demo(db_url, "tess")
    s = open_store(db_url)
    yield s
    s.close()
