"""The one class that owns the database connections; mixins add the rest of the store's API."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Connection, CursorResult, Engine, select
from sqlmodel import col

from reviewer.errors import BrokenStoredRubric, UnknownRubric, UserError
from reviewer.store.tables import Item, ItemRevision, RubricVersion, table_of
from rubrics.errors import RubricError
from rubrics.library import find_bundled, parse_ref
from rubrics.loader import load_rubric_text
from rubrics.schema import Rubric
from rubrics.versioning import check_bump, diff


def any_item_revised(conn: Connection, rubric_ref: str) -> bool:
    """Whether an item of the rubric version has had its content changed (``import --update``):
    an item's earlier content is kept in ``item_revision``, so any row there for one of the
    rubric's items means a revised item (and scores of an earlier revision may exist)."""
    revised = (select(col(ItemRevision.pk)).join(Item, col(Item.pk) == col(ItemRevision.item_pk))
               .where(col(Item.rubric_ref) == rubric_ref).limit(1))
    return conn.execute(revised).first() is not None


class StoreBase:
    """Connections and rubric versions."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.dialect = engine.dialect.name
        self._rubric_cache: dict[str, Rubric] = {}

    @contextmanager
    def write(self, durable: bool = True) -> Iterator[Connection]:
        """A read-then-write transaction (SQLite: BEGIN IMMEDIATE, so no 'database is locked').

        ``durable=False`` (SQLite) skips the commit's fsync: for leases and queue bookkeeping,
        which a power cut may roll back harmlessly — never for scores or decisions. An
        application crash still loses nothing committed (WAL with synchronous=NORMAL)."""
        with self.engine.connect() as conn:
            relaxed = not durable and self.dialect == "sqlite"  # PostgreSQL: always durable
            raw = conn.connection.driver_connection if relaxed else None
            if raw is not None:  # on the driver's connection: no transaction begins for it
                raw.execute("PRAGMA synchronous=NORMAL")
            try:
                conn.info["begin_sql"] = "BEGIN IMMEDIATE"
                with conn.begin():
                    yield conn
            finally:
                if raw is not None:
                    raw.execute("PRAGMA synchronous=FULL")

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A read-only transaction (SQLite: deferred, so writers are not held up)."""
        with self.engine.connect() as conn:
            conn.info["begin_sql"] = "BEGIN"
            with conn.begin():
                yield conn

    def close(self) -> None:
        """Dispose of the engine's connections."""
        self.engine.dispose()

    def checkpoint(self) -> None:
        """SQLite: copy the write-ahead log into the database now (PASSIVE: nobody waits). After a
        large import the log holds every page written; the first small commit that crosses the
        auto-checkpoint mark would otherwise copy them all while a reviewer waits."""
        if self.dialect != "sqlite":
            return
        raw = self.engine.raw_connection()  # outside any transaction: a checkpoint cannot run in one
        try:
            raw.cursor().execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        finally:
            raw.close()

    # --- rubric versions --------------------------------------------------------------------
    def add_rubric(self, rubric: Rubric, yaml_text: str, require_newer: bool = True) -> bool:
        """Register a rubric version; False when the identical version is already there.

        ``yaml_text`` must be the text ``rubric`` was validated from (its content hash is checked,
        so what is stored is what was validated). The same ``id@version`` with other content is
        refused; so is a new version whose number understates the change against the latest stored
        version, and (``require_newer``) a new version numbered at or below the latest: versions
        only go up, so no back-dated number skips the bump check. Bundled versions, registered on
        first use in any order, pass ``require_newer=False``.
        """
        if load_rubric_text(yaml_text, rubric.source or rubric.ref).content_hash != rubric.content_hash:
            raise UserError(f"{rubric.source or rubric.ref}: the text to store is not the text that was "
                            "validated (the file changed while it was read?); run the command again")
        with self.write() as conn:
            rows = conn.execute(
                select(col(RubricVersion.version), col(RubricVersion.content_hash), col(RubricVersion.yaml_text))
                .where(col(RubricVersion.rubric_id) == rubric.id)
            ).all()
            for version, content_hash, text in rows:
                if version == rubric.version:
                    if content_hash == rubric.content_hash:
                        return False
                    old = _stored(text, content_hash, rubric.id, version)
                    need = diff(old, rubric).required
                    raise UserError(
                        f"{rubric.source or rubric.ref}: version {rubric.version} of {rubric.id} is "
                        f"already used; bump it: the change requires a {need} bump"
                    )
            if rows:
                latest = max(rows, key=lambda r: _semver(r[0]))
                if _semver(rubric.version) > _semver(latest[0]):
                    problem = check_bump(_stored(latest[2], latest[1], rubric.id, latest[0]), rubric)
                    if problem:
                        raise UserError(f"{rubric.source or rubric.ref}: {problem}")
                elif require_newer:
                    raise UserError(
                        f"{rubric.source or rubric.ref}: version {rubric.version} of {rubric.id} is not above "
                        f"the latest registered version {latest[0]}; versions must increase: number it "
                        f"above {latest[0]}")
            conn.execute(table_of(RubricVersion).insert().values(
                rubric_id=rubric.id, version=rubric.version, content_hash=rubric.content_hash,
                yaml_text=yaml_text))
        return True

    def get_rubric(self, ref: str) -> Rubric:
        """The rubric ``id@version`` (or the latest version of ``id``); bundled rubrics are
        registered on first use. A stored version whose text no longer matches its recorded
        content hash (edited in the database) is refused, never used."""
        if ref in self._rubric_cache:
            return self._rubric_cache[ref]
        rid, version = parse_ref(ref)
        with self.read() as conn:
            q = select(col(RubricVersion.version), col(RubricVersion.yaml_text), col(RubricVersion.content_hash)).where(
                col(RubricVersion.rubric_id) == rid)
            rows = conn.execute(q).all()
        rows = [r for r in rows if version is None or r[0] == version]
        if rows:
            v, text, content_hash = max(rows, key=lambda r: _semver(r[0]))
            rubric = _stored(text, content_hash, rid, v)
        else:
            try:
                rubric = find_bundled(rid, version)
            except RubricError:
                raise UnknownRubric(ref) from None
            self.add_rubric(rubric, _bundled_text(rubric.source), require_newer=False)
        self._rubric_cache[ref] = rubric
        return rubric

    def list_rubrics(self) -> list[tuple[str, str, str]]:
        """(id, version, hash) of every registered version."""
        with self.read() as conn:
            rows = conn.execute(select(col(RubricVersion.rubric_id), col(RubricVersion.version),
                                       col(RubricVersion.content_hash))).all()
        return sorted((a, b, c) for a, b, c in rows)


def records(conn: Connection, query: Any) -> list[SimpleNamespace]:
    """Rows of ``select(Table)`` as objects with one attribute per column (``metadata`` → ``meta``)."""
    out = []
    for row in conn.execute(query):
        data = dict(row._mapping)
        if "metadata" in data:
            data["meta"] = data.pop("metadata")
        out.append(SimpleNamespace(**data))
    return out


def current_revision(conn: Connection, item_pk: int) -> int:
    """The item's content revision (what a row written on it now belongs to); a
    :class:`UserError` when there is no such item."""
    revision = conn.execute(select(col(Item.revision)).where(col(Item.pk) == item_pk)).scalar()
    if revision is None:
        raise UserError(f"no item with key {item_pk}")
    return int(revision)


def inserted_pk(result: CursorResult[Any]) -> int:
    """The primary key of the row a one-row INSERT just wrote (SQLAlchemy types the key as
    optional: it is absent only for statements that are not one-row inserts)."""
    key = result.inserted_primary_key
    if key is None or key[0] is None:
        raise RuntimeError("the INSERT reported no primary key")
    return int(key[0])


def _stored(text: str, content_hash: str, rid: str, version: str) -> Rubric:
    """A stored rubric version, checked against the content hash recorded when it was added."""
    where = f"{rid}@{version} (stored)"
    try:
        rubric = load_rubric_text(text, where)
    except RubricError as exc:  # edited in the database, or stored before a rule it breaks
        raise BrokenStoredRubric(where, f"{exc.rule}: {exc.message}") from None
    if rubric.content_hash != content_hash:
        raise UserError(f"{where}: its text does not match the content hash recorded when it was added "
                        "(edited in the database?); refusing to use it: restore it, or register the "
                        "rubric again under a new version")
    return rubric


def _semver(v: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in v.split("-")[0].split("."))
    except ValueError:
        return (0,)


@lru_cache(maxsize=32)
def _bundled_text(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        return fh.read()
