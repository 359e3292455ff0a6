"""``rubricate align --write``: the chosen judge set-up as a new rubric version.

Only a dimension whose chosen candidate did *better* than the current one on test (the interval
of the difference above 0) is written; when none did, nothing is registered. The new version is
the latest one's minor bump, made from the aligned version's YAML with the chosen changes (a
rewritten ``prompt``, ``judge.correction_examples: K``, ``judge.model``, a dimension's
``samples``), so ``rubric diff`` shows exactly them. Its provenance (the align runs, seed, split
sizes, dev and test figures) heads the file as comment lines: the rubric's notes, kept in the
stored text and never part of its content hash.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import yaml

from reviewer.errors import UserError
from rubrics.loader import load_rubric_text
from rubrics.schema import Rubric

if TYPE_CHECKING:  # (types alone: the store's module, imported, would load SQLAlchemy)
    from reviewer.services.align_result import AlignResult
    from reviewer.store import Store


def _semver(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(x) for x in version.split("-")[0].split("."))
    return major, minor, patch


def next_minor(versions: Sequence[str]) -> str:
    """The minor bump of the latest of ``versions``."""
    major, minor, _ = max(_semver(v) for v in versions)
    return f"{major}.{minor + 1}.0"


def _apply(data: dict[str, object], result: AlignResult, judge: dict[str, object]) -> None:
    """One dimension's chosen candidate written into the rubric's YAML data (its ``dimensions``
    a list, as :func:`write_version` checked)."""
    row = next(r for r in result["candidates"] if r["name"] == result["chosen"])
    listed = data["dimensions"]
    dims = {d.get("id"): d for d in (listed if isinstance(listed, list) else []) if isinstance(d, dict)}
    dim = dims[result["dimension"]]
    name = row["name"]
    if name == "rewrite":
        dim["prompt"] = row["prompt"]
    elif name.startswith("samples:"):
        dim["samples"] = row["samples"]
    else:
        key, value = ("model", row["model"]) if name.startswith("model:") else ("correction_examples", row["k"])
        if key in judge and judge[key] != value:
            raise UserError(f"--write: the dimensions chose different judge.{key} ({judge[key]} and {value}), "
                            "a setting of the whole rubric; align them one --dimension at a time")
        judge[key] = value


def notes(rubric: Rubric, results: Sequence[AlignResult]) -> str:
    """The provenance comment lines heading the new version's YAML."""
    lines = [f"# Written by rubricate align from {rubric.ref}."]
    for r in results:
        t = r["test"]
        dev = next(c for c in r["candidates"] if c["name"] == r["chosen"])
        lines.append(
            f"# {r['dimension']}: align run {r['run']}, seed {r['seed']}, test share {r['test_share']:g}, "
            f"{len(r['dev_items'])} dev / {len(r['test_items'])} test items; chosen {r['chosen']} "
            f"(dev alpha {_num(dev['dev_alpha'])}); test alpha {_num(t['before']['alpha'])} -> {_num(t['after']['alpha'])}, "
            f"difference {_num(t['difference'])} [{', '.join(_num(x) for x in t['difference_ci'] or [])}]: {t['verdict']}")
    return "\n".join(line.replace("\n", " ") for line in lines) + "\n"


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{float(x):.3f}"


def write_version(store: Store, rubric_ref: str, results: Sequence[AlignResult]) -> str | None:
    """Register the better dimensions' chosen set-ups as a new version; its ref, or None when no
    dimension did better on test (nothing is registered then)."""
    better = [r for r in results if "test" in r and r["test"]["verdict"] == "better" and r["chosen"] != "current"]
    if not better:
        return None
    rubric = store.rubrics.get_rubric(rubric_ref)
    data = yaml.safe_load(store.rubrics.rubric_yaml(rubric.ref))
    if not isinstance(data, dict) or not isinstance(data.get("dimensions"), list):
        raise UserError(f"--write: {rubric.ref} is not in rubricate's own rubric format (a FlexEval rubric?): "
                        "write the chosen prompt into it by hand (it is in the align run)")
    judge = dict(data.get("judge") or {})
    for r in better:
        _apply(data, r, judge)
    if judge:
        data["judge"] = judge
    data["version"] = next_minor(store.rubrics.rubric_versions(rubric.id))
    text = notes(rubric, better) + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    new = load_rubric_text(text, f"{rubric.id}@{data['version']} (rubricate align)")
    store.rubrics.add_rubric(new, text)
    for r in better:
        store.align.finish_align_run(r["run"], "done", r, written_ref=new.ref)
    return new.ref
