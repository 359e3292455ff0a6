"""People's scores as Langfuse score objects (``rubricate export --to langfuse``): one JSON object
per line, each a reviewer's standing score on an item's current revision, in the shape of
Langfuse's score API (``POST /api/public/scores``'s body, with the score object's ``stringValue``, ``source``,
``authorUserId`` and ``timestamp``). docs/formats.md ("Langfuse scores") has the mapping.

Read from the tidy rows (:mod:`reviewer.services.tidy`): the same scores the Parquet export
holds. An item without a trace id has nowhere to go in Langfuse: its scores are not written, and
the caller is told which items they were (:attr:`LangfuseExport.untraced`), never silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NotRequired, TypedDict

from reviewer.services.tidy import TidyRow, tidy_rows

if TYPE_CHECKING:  # (the store's class, for its type alone: importing it loads SQLAlchemy)
    from reviewer.store import Store
    from rubrics.schema import Dimension


class ScoreMetadata(TypedDict):
    """Where the score came from in rubricate (the score object's ``metadata``)."""

    rubric: str
    dataset: str
    item_id: str
    revision: int
    kind: str
    tags: list[str]
    blind: bool | None


class LangfuseScore(TypedDict):
    """One score object, Langfuse's field names (docs/formats.md, "Langfuse scores")."""

    id: str
    traceId: str
    name: str
    value: float | str
    dataType: str
    source: str
    authorUserId: str
    stringValue: NotRequired[str]
    comment: NotRequired[str]
    timestamp: NotRequired[str]
    metadata: ScoreMetadata


def typed_value(dim: Dimension, score: float) -> tuple[float | str, str]:
    """(value, ``dataType``) of a score as Langfuse takes it: on a scale of exactly the levels 0
    and 1, ``BOOLEAN`` (1 or 0); on a dimension measured at the nominal level, ``CATEGORICAL``
    with the anchor label at the score (the number as text where no single-score anchor names
    it); else, and for a score between the scale's levels (an imported mean of several people),
    ``NUMERIC`` with the score itself."""
    if not dim.scale.is_level(score):
        return score, "NUMERIC"
    if tuple(dim.scale.level_values()) == (0.0, 1.0):
        return score, "BOOLEAN"
    if dim.measurement_level == "nominal":
        return dim.label_for(score) or f"{score:g}", "CATEGORICAL"
    return score, "NUMERIC"


def score_id(row: TidyRow) -> str:
    """A stable id for the score (Langfuse updates a score posted again with the same id, so a
    re-export posted twice adds nothing): a hash of where it belongs and whose it is."""
    key = json.dumps([row["rubric"], row["dataset"], row["item_id"], row["revision"], row["dimension"],
                      row["scorer"], row["kind"] == "adjudication"], ensure_ascii=False)
    return "rubricate-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


@dataclass
class LangfuseExport:
    """What an export to Langfuse wrote and what it could not."""

    written: int = 0
    #: (rubric, dataset, item id) of each item with people's scores but no trace id, in key order
    untraced: list[tuple[str, str, str]] = field(default_factory=list)
    #: how many scores those items hold (not written)
    untraced_scores: int = 0

    def untraced_line(self) -> str | None:
        """The one line naming the items that had no trace id (None when every item had one)."""
        if not self.untraced:
            return None
        names = ", ".join(f"{rubric}:{dataset + '/' if dataset else ''}{item}" for rubric, dataset, item in self.untraced)
        return (f"not written: {self.untraced_scores} score(s) of {len(self.untraced)} item(s) without "
                f"metadata.trace_id (RUBRIC:DATASET/ID): {names}")


def langfuse_scores(store: Store, report: LangfuseExport, rubric_ref: str | None = None,
                    dataset: str | None = None) -> Iterator[LangfuseScore]:
    """People's standing scores on each item's current revision as Langfuse score objects;
    ``report`` is filled in as they go (count written, items without a trace id)."""
    seen: set[tuple[str, str, str]] = set()
    for row in tidy_rows(store, rubric_ref, dataset):
        if row["scorer_type"] != "human" or not row["current_revision"] or row["score"] is None:
            continue
        key = (row["rubric"], row["dataset"], row["item_id"])
        if row["trace_id"] is None:
            if key not in seen:
                seen.add(key)
                report.untraced.append(key)
            report.untraced_scores += 1
            continue
        dim = store.rubrics.get_rubric(row["rubric"]).dimension(row["dimension"])
        value, kind = typed_value(dim, row["score"])
        out = LangfuseScore(
            id=score_id(row), traceId=row["trace_id"], name=row["dimension"],
            value=value, dataType=kind, source="ANNOTATION",
            authorUserId=row["scorer"],
            metadata=ScoreMetadata(rubric=row["rubric"], dataset=row["dataset"], item_id=row["item_id"],
                                   revision=row["revision"], kind=row["kind"], tags=row["tags"],
                                   blind=row["blind"]))
        if kind == "CATEGORICAL":  # the score object's text of the value (its GET shape)
            out["stringValue"] = str(value)
        elif kind == "BOOLEAN":
            out["stringValue"] = "True" if value == 1 else "False"
        if row["reason"]:
            out["comment"] = row["reason"]
        if row["created_at"] is not None:
            out["timestamp"] = row["created_at"].isoformat()
        report.written += 1
        yield out
