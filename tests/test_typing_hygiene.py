"""`mypy --strict` covers every package; a ``# type: ignore`` names its error code and says why.

The rule (issue 12): an ignore is written ``# type: ignore[code]  # reason`` on one line, so
that mypy can report it unused (``warn_unused_ignores``) and a reader knows what the stubs
cannot see. A bare ``# type: ignore``, one without a code, or one without a reason fails here
with file:line.
"""

from __future__ import annotations

import io
import re
import tokenize
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rubrics", "calibration", "reviewer", "rubricate", "tests", "benchmarks")
#: A comment that mypy reads as an ignore (it starts with ``type: ignore``), its codes (if any),
#: then the rest of the comment.
IGNORE = re.compile(r"^#\s*type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)")
#: after the codes: another ``#`` and some words of reason.
REASON = re.compile(r"^\s*#\s*\S.{2,}")


def unexplained_ignores(source: str, name: str) -> list[str]:
    """``name:line: …`` for every ``type: ignore`` comment in ``source`` without an error code
    in brackets or without a reason (a second ``#`` comment after the codes, on the same line)."""
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        m = IGNORE.search(tok.string)
        if m is None:
            continue
        codes = (m["codes"] or "").strip("[]").strip()
        if not codes:
            found.append(f"{name}:{tok.start[0]}: type: ignore without an error code: {tok.string.strip()}")
        elif not REASON.match(m["rest"]):
            found.append(f"{name}:{tok.start[0]}: type: ignore[{codes}] without a reason "
                         f"(write '# type: ignore[{codes}]  # why'): {tok.string.strip()}")
    return found


def test_every_type_ignore_has_a_code_and_a_reason() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += unexplained_ignores(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "\n".join(found)


def test_the_checker_catches_bare_and_unexplained_ignores() -> None:
    sample = (
        "a = f()  # type: ignore\n"
        "b = g()  # type: ignore[arg-type]\n"
        "c = h()  # type: ignore[]  # empty codes\n"
        "d = k()  # type: ignore[attr-defined]  # the stubs do not declare k's result\n"
        "e = '# type: ignore'  # inside a string it is no comment\n"
        "f = m()  #type:ignore[misc]#x\n"
        "g = 1  # a comment that mentions type: ignore is no ignore\n"
    )
    found = unexplained_ignores(sample, "sample.py")
    assert [line.split(": ", 1)[0] for line in found] == ["sample.py:1", "sample.py:2", "sample.py:3", "sample.py:6"]
    assert "without an error code" in found[0]
    assert "without a reason" in found[1]


def test_mypy_checks_every_package_tests_and_benchmarks_included() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert sorted(config["files"]) == sorted(PACKAGES)


#: Where the store is always taken as ``Store``: mypy then checks every call across the seam.
TYPED_STORE = ("reviewer/services", "reviewer/cli", "reviewer/demo")
#: An ``Any``-typed store parameter, or a call looked up by name on a value (``getattr(x, how)``).
UNTYPED_SEAM = re.compile(r"\bstore: Any\b|\bgetattr\(")


def test_services_cli_and_demo_take_the_store_typed() -> None:
    """No ``store: Any`` and no ``getattr`` dispatch where the front ends meet the services."""
    found = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
             for folder in TYPED_STORE for path in sorted((ROOT / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if UNTYPED_SEAM.search(line)]
    assert found == [], "\n".join(found)


def test_mypy_allows_no_explicit_any_in_the_services() -> None:
    """The services' reports and parameters are typed: mypy refuses an explicit ``Any`` there."""
    overrides = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["overrides"]
    assert any(o.get("module") == ["reviewer.services.*"] and o.get("disallow_any_explicit") is True
               for o in overrides), overrides
