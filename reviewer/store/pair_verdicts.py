"""Pair verdicts an item file carries (docs/formats.md, "Pair records"): people's verdicts join
the review screen's pair choices (one history, the same table, ``kind = 'import'``); a judge's
go to ``pair_judgment``, in the order the items were shown. Written inside the import's
transaction (:func:`write_pairs`): a pair naming an item that is neither in the file nor stored
refuses the whole file.

Pairs are compared within a group, as in the review screen: the two items must share a ``group``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, select
from sqlmodel import col

from reviewer.domain.pairs import PairRecord
from reviewer.domain.provenance import iso
from reviewer.store.base import records
from reviewer.store.db import Db
from reviewer.store.pairs import _group_revision, item_ids
from reviewer.store.tables import Item, PairChoice, PairJudgment, table_of
from reviewer.store.views import PairVerdictExport


@dataclass(frozen=True)
class PairJudgmentRecord:
    """A judge model's current verdict on two items in one order (``item_a_pk`` shown first)."""

    pk: int
    group: str
    model: str
    item_a_pk: int
    item_b_pk: int
    #: ``a``, ``b`` or ``tie``, as shown
    winner: str
    rationale: str | None
    created_at: datetime

    @property
    def winner_item_pk(self) -> int | None:
        """The better item's key; None for a tie."""
        return {"a": self.item_a_pk, "b": self.item_b_pk}.get(self.winner)


class PairVerdicts:
    """Judge verdicts on pairs, read back."""

    def __init__(self, db: Db) -> None:
        self.db = db

    def pair_judgments(self, rubric_ref: str, all_revisions: bool = False) -> list[PairJudgmentRecord]:
        """Each model's current verdict on each pair in each order (its latest row for it),
        oldest first; verdicts given before any item of the group changed are left out unless
        ``all_revisions``."""
        latest: dict[tuple[str, int, int], PairJudgmentRecord] = {}
        with self.db.read() as conn:
            rows = records(conn, select(PairJudgment).where(col(PairJudgment.rubric_ref) == rubric_ref)
                           .order_by(col(PairJudgment.pk)))
            current = {} if all_revisions else {g: _group_revision(conn, rubric_ref, g) for g in {r.grp for r in rows}}
            for r in rows:
                if all_revisions or r.revision == current[r.grp]:
                    latest[(r.model, r.item_a_pk, r.item_b_pk)] = PairJudgmentRecord(
                        r.pk, r.grp, r.model, r.item_a_pk, r.item_b_pk, r.winner, r.rationale, r.created_at)
        return sorted(latest.values(), key=lambda j: j.pk)

    def pair_judgments_by_item(self, rubric_refs: Iterable[str]) -> dict[int, list[PairVerdictExport]]:
        """For the export: per item key, the judges' current verdicts on the pairs it is in, as
        ``{model, a, b, winner, rationale, created_at}`` (``a`` the item shown first, ``b`` the
        second, ``winner`` the better one, null for a tie: item ids; ``created_at`` ISO 8601, UTC)."""
        judged = [j for ref in sorted(set(rubric_refs)) for j in self.pair_judgments(ref)]
        pks = sorted({pk for j in judged for pk in (j.item_a_pk, j.item_b_pk)})
        with self.db.read() as conn:
            ids = item_ids(conn, pks)
        out: dict[int, list[PairVerdictExport]] = {}
        for j in judged:
            winner = j.winner_item_pk
            record: PairVerdictExport = {"model": j.model, "a": ids.get(j.item_a_pk), "b": ids.get(j.item_b_pk),
                      "winner": None if winner is None else ids.get(winner), "rationale": j.rationale,
                      "created_at": iso(j.created_at)}
            for pk in (j.item_a_pk, j.item_b_pk):
                out.setdefault(pk, []).append(record)
        return out


def write_pairs(conn: Connection, rubric_ref: str, ds: str, pairs: Sequence[PairRecord], src: str,
                errs: list[str]) -> tuple[int, int]:
    """Write the file's pair verdicts (its items already written in this transaction); every
    pair naming an unknown item, or two items of different groups, appended to ``errs`` and
    nothing written. A verdict already stored as imported (same pair, person or model, winner,
    words and group revision) is not written again. Returns (people's verdicts, judge verdicts)
    written."""
    found = _items(conn, rubric_ref, ds, sorted({i for p in pairs for i in (p.a, p.b)}))
    where = f"rubric {rubric_ref}" + (f", dataset {ds!r}" if ds else "")
    placed: list[tuple[PairRecord, int, int, str]] = []
    for p in pairs:
        missing = [i for i in (p.a, p.b) if i not in found]
        if missing:
            errs.append(f"{src}:{p.line}: pair: item {missing[0]!r} is neither in this file nor stored in {where}; "
                        "import the item first or fix the id")
            continue
        (pk_a, grp_a), (pk_b, grp_b) = found[p.a], found[p.b]
        if grp_a is None or grp_a != grp_b:
            errs.append(f"{src}:{p.line}: pair: items {p.a!r} and {p.b!r} are not in one group; "
                        "give both the same \"group\" (pairs are compared within a group)")
            continue
        placed.append((p, pk_a, pk_b, grp_a))
    if errs:
        return 0, 0
    revisions: dict[str, int] = {}
    choices: list[dict[str, object]] = []
    judged: list[dict[str, object]] = []
    for p, pk_a, pk_b, grp in placed:
        if grp not in revisions:
            revisions[grp] = _group_revision(conn, rubric_ref, grp)
        rev = revisions[grp]
        side = {"a": pk_a, "b": pk_b, "tie": None}
        lo, hi = sorted((pk_a, pk_b))
        for h in p.human:
            choices.append({"grp": grp, "rubric_ref": rubric_ref, "reviewer": h.by, "winner_item_pk": side[h.winner],
                            "reason": h.reason, "tags": [], "item_a_pk": lo, "item_b_pk": hi, "revision": rev,
                            "kind": "import"})
        if p.judge is not None:
            judged.append({"rubric_ref": rubric_ref, "grp": grp, "item_a_pk": pk_a, "item_b_pk": pk_b,
                           "model": p.judge.by, "winner": p.judge.winner, "rationale": p.judge.reason,
                           "revision": rev})
    choices = _new(conn, PairChoice, choices, ("grp", "reviewer", "winner_item_pk", "reason", "item_a_pk",
                                               "item_b_pk", "revision"), kind="import")
    judged = _new(conn, PairJudgment, judged, ("grp", "item_a_pk", "item_b_pk", "model", "winner", "rationale",
                                               "revision"))
    if choices:
        conn.execute(table_of(PairChoice).insert(), choices)
    if judged:
        conn.execute(table_of(PairJudgment).insert(), judged)
    return len(choices), len(judged)


def _items(conn: Connection, rubric_ref: str, ds: str, ids: list[str]) -> dict[str, tuple[int, str | None]]:
    """item id → (key, group) of the ids stored in this rubric and dataset."""
    out: dict[str, tuple[int, str | None]] = {}
    for i in range(0, len(ids), 500):
        q = select(col(Item.item_id), col(Item.pk), col(Item.grp)).where(
            col(Item.rubric_ref) == rubric_ref, col(Item.dataset) == ds, col(Item.item_id).in_(ids[i:i + 500]))
        out.update({item_id: (pk, grp) for item_id, pk, grp in conn.execute(q)})
    return out


def _new(conn: Connection, model: type[PairChoice] | type[PairJudgment], rows: list[dict[str, object]],
         key: tuple[str, ...], **same: str) -> list[dict[str, object]]:
    """``rows`` less those already stored (the same values in ``key``, and ``same``): importing
    a file again adds no verdict twice."""
    if not rows:
        return rows
    cols = [getattr(model, k) for k in key]
    q = select(*(col(c) for c in cols)).where(col(model.rubric_ref) == rows[0]["rubric_ref"],
                                             *(col(getattr(model, k)) == v for k, v in same.items()))
    seen = {tuple(r) for r in conn.execute(q)}
    out = []
    for r in rows:
        values = tuple(r[k] for k in key)
        if values not in seen:
            out.append(r)
    return out


__all__ = ["PairJudgmentRecord", "PairVerdicts", "write_pairs"]
