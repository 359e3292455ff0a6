"""What changed between two rubric versions, and the version bump the change requires.

The wiki's rules: patch for wording, prompt clarifications and a threshold moved by at most 5
points; minor for a dimension added or removed or weights changed materially; major for a change
of scoring philosophy — a dimension's method or scale, or human review brought in or taken out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from rubrics.schema import Rubric

Bump = Literal["none", "patch", "minor", "major"]
ORDER: dict[str, int] = {"none": 0, "patch": 1, "minor": 2, "major": 3}
#: A weight change above this is "material" (a minor bump); below it, a patch.
MATERIAL_WEIGHT = 0.02
#: A threshold moved by more than this many points needs a minor bump.
THRESHOLD_PATCH_POINTS = 5.0


@dataclass(frozen=True)
class Change:
    """One difference between the two versions."""

    path: str
    what: str
    old: Any
    new: Any
    bump: Bump


@dataclass
class RubricDiff:
    """Every change and the largest bump among them."""

    changes: list[Change] = field(default_factory=list)

    @property
    def required(self) -> Bump:
        """The bump the change needs."""
        if not self.changes:
            return "none"
        return max((c.bump for c in self.changes), key=lambda b: ORDER[b])

    def add(self, path: str, what: str, old: Any, new: Any, bump: Bump) -> None:
        self.changes.append(Change(path, what, old, new, bump))


def diff(old: Rubric, new: Rubric) -> RubricDiff:
    """Compare two versions of a rubric."""
    d = RubricDiff()
    for key in ("name", "owner", "description"):
        if getattr(old, key) != getattr(new, key):
            d.add(key, "wording", getattr(old, key), getattr(new, key), "patch")
    if (old.scale.min, old.scale.max, old.scale.levels) != (new.scale.min, new.scale.max, new.scale.levels):
        d.add("scale", "scale changed", old.scale, new.scale, "major")
    if set(old.safety_gates) != set(new.safety_gates):
        d.add("safety_gates", "gates changed", list(old.safety_gates), list(new.safety_gates), "minor")
    if old.headline != new.headline:
        d.add("headline", "headline score changed", old.headline, new.headline, "minor")
    if old.safety_cap != new.safety_cap or old.bands != new.bands:
        d.add("safety_cap/bands", "scoring bands or cap changed", None, None, "minor")
    old_dims = {x.id: x for x in old.dimensions}
    new_dims = {x.id: x for x in new.dimensions}
    for did in old_dims.keys() - new_dims.keys():
        d.add(f"dimensions.{did}", "dimension removed", did, None, "minor")
    for did in new_dims.keys() - old_dims.keys():
        d.add(f"dimensions.{did}", "dimension added", None, did, "minor")
    methods = {x.method for x in old.dimensions} ^ {x.method for x in new.dimensions}
    if "human" in methods:
        d.add("dimensions", "human review brought in or taken out (scoring philosophy)", None, None, "major")
    for did in sorted(old_dims.keys() & new_dims.keys()):
        a, b, p = old_dims[did], new_dims[did], f"dimensions.{did}"
        if a.method != b.method:
            d.add(f"{p}.method", "method changed", a.method, b.method, "major")
        if (a.scale.min, a.scale.max, a.scale.levels) != (b.scale.min, b.scale.max, b.scale.levels):
            d.add(f"{p}.scale", "scale changed", a.scale, b.scale, "major")
        if abs(a.weight - b.weight) > 1e-9:
            bump: Bump = "minor" if abs(a.weight - b.weight) > MATERIAL_WEIGHT else "patch"
            d.add(f"{p}.weight", "weight changed", a.weight, b.weight, bump)
        if a.threshold != b.threshold:
            moved = abs(a.threshold - b.threshold)
            d.add(f"{p}.threshold", f"threshold moved {moved:g} points", a.threshold, b.threshold,
                  "patch" if moved <= THRESHOLD_PATCH_POINTS else "minor")
        for key in ("name", "description", "prompt", "anchors"):
            if getattr(a, key) != getattr(b, key):
                d.add(f"{p}.{key}", "wording", None, None, "patch")
        for key in ("rule", "choices", "ceiling", "depends_on", "params", "samples", "metric_level", "judge_scale",
                    "turn_aggregate", "role", "level"):
            if getattr(a, key) != getattr(b, key):
                d.add(f"{p}.{key}", f"{key} changed", getattr(a, key), getattr(b, key), "minor")
    if old.judge != new.judge or old.review != new.review:
        d.add("judge/review", "judge or review settings changed", None, None, "patch")
    return d


def _parts(version: str) -> tuple[int, int, int]:
    major, minor, patch = version.split("-")[0].split(".")
    return int(major), int(minor), int(patch)


def version_bump(old_version: str, new_version: str) -> Bump:
    """Which part of the version number moved up (``none`` if it did not go up)."""
    o, n = _parts(old_version), _parts(new_version)
    if n <= o:
        return "none"
    if n[0] > o[0]:
        return "major"
    if n[1] > o[1]:
        return "minor"
    return "patch"


def check_bump(old: Rubric, new: Rubric) -> str | None:
    """None when ``new``'s version number is enough for the change, else what to do."""
    required = diff(old, new).required
    given = version_bump(old.version, new.version)
    if required == "none":
        return None
    if ORDER[given] >= ORDER[required]:
        return None
    return (f"{new.id} {old.version} → {new.version} is a {given} bump, "
            f"but the change requires a {required} bump")
