"""The package data ``pyproject.toml`` names is true: every pattern names files that exist (a
pattern matching nothing hides a file that went missing), and every file a package needs that is
not Python is named (else an installed copy lacks it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Files in a package directory that are not shipped data.
NOT_DATA = {".py", ".pyc"}


def _patterns() -> dict[str, list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns: dict[str, list[str]] = config["tool"]["setuptools"]["package-data"]
    return patterns


def test_every_package_data_pattern_names_a_file() -> None:
    empty = [f"{package}/{pattern}" for package, patterns in _patterns().items() for pattern in patterns
             if not any(p.is_file() for p in (ROOT / package).glob(pattern))]
    assert empty == []


def test_every_data_file_is_named() -> None:
    patterns = _patterns()
    named = {p for package, globs in patterns.items() for g in globs for p in (ROOT / package).glob(g)}
    unnamed = [str(p.relative_to(ROOT)) for package in patterns for p in (ROOT / package).rglob("*")
               if p.is_file() and p.suffix not in NOT_DATA and "__pycache__" not in p.parts and p not in named]
    assert unnamed == []
