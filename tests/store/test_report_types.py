"""The report types (reviewer/services/reports.py) name every key the reports carry.

The figures come from ``calibration`` as plain dicts and are typed where they enter a report, so
mypy alone cannot see a key the types forgot: here real reports, from the demo database on each
backend, are walked against their TypedDicts — every key present is declared, every required
key is present.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from reviewer.demo.build import build_demo
from reviewer.services import reports
from reviewer.services.calibrate_service import calibrate, dimension_detail, disagreement_pack
from reviewer.services.run_report import run_report
from reviewer.store import Store, open_store


def mismatches(tp: object, value: object, path: str) -> list[str]:
    """Where ``value`` has a key ``tp`` does not declare, or lacks one it requires."""
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not an object"]
        hints = get_type_hints(tp)
        required: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        found = [f"{path}.{k}: not declared" for k in value if k not in hints]
        found += [f"{path}.{k}: missing" for k in sorted(required) if k not in value]
        return found + [m for k, v in value.items() if k in hints for m in mismatches(hints[k], v, f"{path}.{k}")]
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        for arg in args:  # the member of the union this value is
            if (is_typeddict(arg) and isinstance(value, dict)) or (get_origin(arg) is list and isinstance(value, list)):
                return mismatches(arg, value, path)
        return []
    if origin is list and isinstance(value, list):
        return [m for i, v in enumerate(value) for m in mismatches(args[0], v, f"{path}[{i}]")]
    if origin is dict and isinstance(value, dict):
        return [m for k, v in value.items() for m in mismatches(args[1], v, f"{path}.{k}")]
    return []


@pytest.fixture
def demo(db_url: str) -> Iterator[Store]:
    """The demo database (items, people's scores, an audit sample, pair choices) on each backend."""
    build_demo(db_url, "chen")
    s = open_store(db_url, existing=True)
    yield s
    s.close()


def test_the_checker_sees_an_undeclared_and_a_missing_key() -> None:
    bad = {"scored": 1, "mean": None, "errors": 0, "extra": 1}  # no "aggregate"
    assert mismatches(reports.TurnFigures, bad, "t") == ["t.extra: not declared", "t.aggregate: missing"]


def test_calibration_reports_match_their_types(demo: Store) -> None:
    """Every shape ``calibrate`` gives: per model, corrected estimates with a ranking and a
    target width, z-normalised, pairs, and the drill-down and disagreement pack."""
    found = []
    for ref in ("general-quality@1.0.0", "rag-answer@1.0.0", "reval-issue-framing@1.0.0"):
        for how, report in (("default", calibrate(demo, ref, draws=20)),
                            ("grouped", calibrate(demo, ref, "demo", "all", "metadata.model", draws=20,
                                                  target_width=0.5)),
                            ("z", calibrate(demo, ref, draws=20, normalise="z"))):
            found += mismatches(reports.CalibrationReport, report, f"{ref} {how}")
        found += mismatches(reports.RunReport, run_report(demo, ref), f"report {ref}")
        dim = demo.rubrics.get_rubric(ref).dimensions[0].id
        found += mismatches(reports.DimensionDetail, dimension_detail(demo, ref, dim), f"detail {ref}")
        found += mismatches(list[reports.PackEntry], disagreement_pack(demo, ref, 3), f"pack {ref}")
    assert found == [], "\n".join(found)
