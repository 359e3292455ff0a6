"""The bundled rubrics shipped in ``rubrics/library/*.yaml`` (package data)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from rubrics.errors import RubricError
from rubrics.loader import load_rubric_file
from rubrics.rules import id_problem, version_problem
from rubrics.schema import Rubric

LIBRARY_DIR = Path(__file__).resolve().parent / "library"


def bundled_paths() -> list[Path]:
    """Every bundled rubric file, sorted by name."""
    return sorted(LIBRARY_DIR.glob("*.yaml"))


@lru_cache(maxsize=1)
def bundled() -> tuple[Rubric, ...]:
    """Every bundled rubric, loaded and validated."""
    return tuple(load_rubric_file(p) for p in bundled_paths())


def parse_ref(ref: str) -> tuple[str, str | None]:
    """Split ``id@version`` (the version is optional); each part is held to the rubric file's own
    rule (:func:`rubrics.rules.id_problem`, :func:`rubrics.rules.version_problem`)."""
    rid, at, version = ref.partition("@")
    problem = id_problem(rid, "rubric id") if rid else "the rubric id is empty"
    if problem is None and at:
        problem = version_problem(version)
    if problem is not None:
        raise RubricError(repr(ref[:80]), None, "bad-ref",
                          f"{problem}; a rubric reference is ID or ID@VERSION, e.g. general-quality@1.0.0")
    return rid, version or None


def find_bundled(rubric_id: str, version: str | None = None) -> Rubric:
    """The bundled rubric with this id (and version, if given; else the highest)."""
    matches = [r for r in bundled() if r.id == rubric_id and (version is None or r.version == version)]
    if not matches:
        known = ", ".join(sorted({r.ref for r in bundled()}))
        want = f"{rubric_id}@{version}" if version else rubric_id
        raise RubricError(want, None, "unknown-rubric", f"no bundled rubric {want}; bundled: {known}")
    return max(matches, key=lambda r: tuple(int(x) for x in r.version.split("-")[0].split(".")))
