"""Rubric versions: registered once, read by ``id@version``, never changed (a new version
says how it differs: :mod:`rubrics.versioning`)."""

from __future__ import annotations

from functools import lru_cache

from sqlalchemy import select
from sqlmodel import col

from reviewer.errors import BrokenStoredRubric, UnknownRubric, UserError
from reviewer.store.db import Db
from reviewer.store.tables import RubricVersion, table_of
from rubrics.errors import RubricError
from rubrics.library import find_bundled, parse_ref
from rubrics.loader import load_rubric_text
from rubrics.schema import Rubric
from rubrics.versioning import check_bump, diff


class Rubrics:
    """The store's rubric versions (bundled ones registered on first use), cached per reference."""

    def __init__(self, db: Db) -> None:
        self.db = db
        self._cache: dict[str, Rubric] = {}

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
        with self.db.write() as conn:
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
        if ref in self._cache:
            return self._cache[ref]
        rid, version = parse_ref(ref)
        with self.db.read() as conn:
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
        self._cache[ref] = rubric
        return rubric

    def list_rubrics(self) -> list[tuple[str, str, str]]:
        """(id, version, hash) of every registered version."""
        with self.db.read() as conn:
            rows = conn.execute(select(col(RubricVersion.rubric_id), col(RubricVersion.version),
                                       col(RubricVersion.content_hash))).all()
        return sorted((a, b, c) for a, b, c in rows)

    def rubric_yaml(self, rubric_ref: str) -> str:
        """The YAML text a registered rubric version was validated from."""
        rubric = self.get_rubric(rubric_ref)
        with self.db.read() as conn:
            text = conn.execute(select(col(RubricVersion.yaml_text)).where(
                col(RubricVersion.rubric_id) == rubric.id, col(RubricVersion.version) == rubric.version)).scalar()
        if text is None:
            raise UserError(f"{rubric.ref} has no stored text")
        return str(text)

    def rubric_versions(self, rubric_id: str) -> list[str]:
        """Every registered version of a rubric."""
        with self.db.read() as conn:
            return [str(v) for v in conn.execute(select(col(RubricVersion.version)).where(
                col(RubricVersion.rubric_id) == rubric_id)).scalars()]


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
