"""The store is a composition of doors: plain classes, one per concern, none inheriting another,
each typed without an explicit Any (mypy's ``disallow_any_explicit`` on its module)."""

from __future__ import annotations

import inspect
import tomllib
from pathlib import Path

from reviewer.store.core import Store
from reviewer.store.db import Db

DOORS = ("db", "rubrics", "roles", "items", "scores", "queue", "safety", "ratings", "comments", "runs",
         "pair_verdicts", "links", "align", "activity", "lead_reviews", "batches", "corrections", "history", "marks", "tidy")


def _doors(store: Store) -> dict[str, type]:
    return {name: type(getattr(store, name)) for name in DOORS}


def test_the_store_is_its_doors_and_nothing_else(tmp_path: Path) -> None:
    """Store inherits nothing and has one method of its own (close); each door is a plain
    class (no base but object) and the doors hold one shared Db."""
    from reviewer.store import open_store

    store = open_store(str(tmp_path / "s.db"))
    try:
        assert Store.__mro__ == (Store, object)
        own = {n for n, v in vars(Store).items() if callable(v) and not n.startswith("__")}
        assert own == {"close"}
        doors = _doors(store)
        assert set(vars(store)) == set(DOORS)
        for name, cls in doors.items():
            assert cls.__bases__ == (object,), f"{name}: {cls.__bases__}"
            if name != "db":
                assert getattr(store, name).db is store.db
        assert isinstance(store.db, Db)
    finally:
        store.close()


def test_a_method_name_names_one_door(tmp_path: Path) -> None:
    """No public method name is on two doors: a call site's door follows from the name alone
    (how call sites are rewritten onto the doors)."""
    from reviewer.store import open_store

    store = open_store(str(tmp_path / "s.db"))
    try:
        seen: dict[str, str] = {}
        for name, cls in _doors(store).items():
            for method, _ in inspect.getmembers(cls, lambda v: inspect.isfunction(v) or isinstance(v, property)):
                if method.startswith("_"):
                    continue
                assert method not in seen, f"{method} is on both {seen[method]} and {name}"
                seen[method] = name
    finally:
        store.close()


def test_every_door_module_is_typed_without_explicit_any(tmp_path: Path) -> None:
    """The module of each door (and of Store and Db) is under ``disallow_any_explicit``."""
    from reviewer.store import open_store

    config = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    strict: set[str] = set()
    for override in config["tool"]["mypy"]["overrides"]:
        if override.get("disallow_any_explicit"):
            modules = override["module"]
            strict.update([modules] if isinstance(modules, str) else modules)
    store = open_store(str(tmp_path / "s.db"))
    try:
        modules = {cls.__module__ for cls in _doors(store).values()} | {Store.__module__}
    finally:
        store.close()
    assert modules <= strict, sorted(modules - strict)
