"""The SQL that reads an item's rows for the domain fold (:mod:`reviewer.domain`), and the fold
of many items at once. Every read of an item's state goes through here."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Integer, bindparam, literal, or_, select
from sqlmodel import col

from reviewer.domain import DecisionRow, FlagRow, HumanRow, ItemFold, ItemRows, JudgeRow, fold_item
from reviewer.domain.labels import LABEL_KINDS, LABEL_QUEUE
from reviewer.store.base import StoreBase
from reviewer.store.safety import decision_person, with_reviewer
from reviewer.store.tables import HumanScore, Item, JudgeScore, SafetyDecision, SafetyFlag

CHUNK = 5000


def _rev(table: Any) -> Any:
    """The table's ``revision`` column; NULL where the schema does not record revisions yet (then
    every row counts as the item's current revision's: :func:`reviewer.domain.revision_of`)."""
    col = getattr(table, "revision", None)
    return col if col is not None else literal(None)


def _r(rev: Any, item: ItemRows) -> int:
    return item.revision if rev is None else int(rev)


def label_rows() -> ColumnElement[bool]:
    """The ``human_score`` rows that are labels for the audit sample (:mod:`reviewer.domain.labels`):
    given in the audit queue, imported or adjudicated. Every read of labels filters by this."""
    # equalities, not IN: an expanding IN parameter does not survive the streamed read's own compile
    return or_(col(HumanScore.sample) == LABEL_QUEUE, *(col(HumanScore.kind) == k for k in LABEL_KINDS))


def _judge_select() -> Any:
    """The item's judge rows as the fold reads them (item key first), oldest first; the caller adds
    which items (turn rows are a conversation's, not the item's score)."""
    return (select(col(JudgeScore.item_pk), col(JudgeScore.pk), col(JudgeScore.dimension), col(JudgeScore.model),
                   col(JudgeScore.score), col(JudgeScore.normalised), col(JudgeScore.error),
                   col(JudgeScore.not_applicable), col(JudgeScore.std), _rev(JudgeScore))
            .where(col(JudgeScore.turn).is_(None)).order_by(col(JudgeScore.pk)))


def _judge_row(values: Sequence[Any], item: ItemRows) -> JudgeRow:
    jpk, dim, model, score, norm, err, na, std, rev = values
    return JudgeRow(jpk, dim, model, score, norm, err, bool(na), std, None, _r(rev, item))


def current_rows(conn: Any, item_pk: int, revision: int) -> tuple[ItemRows, frozenset[int]]:
    """One item's human and judge rows of its current content ``revision``, oldest first, with
    only what the people's and the judge's folds read (no reasons, tags or times; no flags), and
    the keys of its human rows that are labels (:func:`label_rows`): what coverage, label
    coverage and the judge–people gap are counted from after every person's write, read lean
    (the two statements are built once: building one costs more than running it)."""
    out, labels = ItemRows(item_pk, revision), set()
    human, judge = _current_statements()
    for hpk, dim, who, score, kind, label in conn.execute(human, {"item": item_pk, "rev": revision}):
        out.human.append(HumanRow(hpk, dim, who, score, kind, revision=revision))
        if label:
            labels.add(hpk)
    for _, *judged in conn.execute(judge, {"item": item_pk, "rev": revision}):
        out.judge.append(_judge_row(judged, out))
    return out, frozenset(labels)


@functools.cache
def _current_statements() -> tuple[Any, Any]:
    item, rev = bindparam("item", type_=Integer), bindparam("rev", type_=Integer)
    human = (select(col(HumanScore.pk), col(HumanScore.dimension), col(HumanScore.reviewer), col(HumanScore.score),
                    col(HumanScore.kind), label_rows().label("label"))
             .where(col(HumanScore.item_pk) == item, col(HumanScore.revision) == rev).order_by(col(HumanScore.pk)))
    judge = _judge_select().where(col(JudgeScore.item_pk) == item, col(JudgeScore.revision) == rev)
    return human, judge


def item_rows(conn: Any, items: Sequence[tuple[int, int]], flags: bool = True,
              labels: bool = False) -> dict[int, ItemRows]:
    """``items``: (item pk, current revision). Their human, judge, flag and decision rows, oldest
    first (judge rows of conversation turns left out; ``flags=False``: no flags or decisions, for
    a caller that needs only people and the judge; ``labels``: only the human rows that are
    labels, :func:`label_rows`)."""
    human_scope = [label_rows()] if labels else []
    out = {pk: ItemRows(pk, int(rev or 1)) for pk, rev in items}
    pks = list(out)
    for i in range(0, len(pks), CHUNK):
        chunk = pks[i:i + CHUNK]
        for pk, hpk, dim, who, score, kind, blind, rev, reason, tags, sample, at in conn.execute(
                select(col(HumanScore.item_pk), col(HumanScore.pk), col(HumanScore.dimension), col(HumanScore.reviewer),
                       col(HumanScore.score), col(HumanScore.kind), col(HumanScore.blind), _rev(HumanScore),
                       col(HumanScore.reason), col(HumanScore.tags), col(HumanScore.sample), col(HumanScore.created_at))
                .where(col(HumanScore.item_pk).in_(chunk), *human_scope).order_by(col(HumanScore.pk))):
            out[pk].human.append(HumanRow(hpk, dim, who, score, kind, bool(blind), _r(rev, out[pk]), reason,
                                          tuple(str(t) for t in tags or ()), sample, at))
        for pk, *judged in conn.execute(_judge_select().where(col(JudgeScore.item_pk).in_(chunk))):
            out[pk].judge.append(_judge_row(judged, out[pk]))
        if not flags:
            continue
        flag_item: dict[int, int] = {}
        for pk, fpk, gate, detector, rev in conn.execute(
                select(col(SafetyFlag.item_pk), col(SafetyFlag.pk), col(SafetyFlag.gate), col(SafetyFlag.detector),
                       _rev(SafetyFlag))
                .where(col(SafetyFlag.item_pk).in_(chunk)).order_by(col(SafetyFlag.pk))):
            out[pk].flags.append(FlagRow(fpk, gate, detector, _r(rev, out[pk])))
            flag_item[fpk] = pk
        if flag_item:
            # a decision's person is the login that wrote it (reviewer.store.safety), not its name
            for dpk, fpk, who, decision in conn.execute(with_reviewer(
                    select(col(SafetyDecision.pk), col(SafetyDecision.flag_pk), decision_person(), col(SafetyDecision.decision))
                    .select_from(SafetyDecision))
                    .where(col(SafetyDecision.flag_pk).in_(list(flag_item))).order_by(col(SafetyDecision.pk))):
                out[flag_item[fpk]].decisions.append(DecisionRow(dpk, fpk, who, decision))
    return out


class FoldMixin(StoreBase):
    """Items' states, folded from their rows."""

    def item_folds(self, rubric_ref: str | None = None, dataset: str | None = None,
                   item_pks: Iterable[int] | None = None, how: str = "mean",
                   all_revisions: bool = False, labels: bool = False) -> Iterator[tuple[Any, ItemFold]]:
        """(item row, its fold) for the items of a rubric (and dataset, or given keys), by key.
        The item row has every ``item`` column (``metadata`` as ``meta``). ``labels``: people's
        side folded from their labels only (:func:`label_rows`: for the audit sample's items)."""
        from reviewer.store.base import records

        with self.read() as conn:
            q = select(Item)
            if rubric_ref:
                q = q.where(col(Item.rubric_ref) == self.get_rubric(rubric_ref).ref)
            if dataset:
                q = q.where(col(Item.dataset) == dataset)
            if item_pks is None:
                items = records(conn, q.order_by(col(Item.pk)))
            else:  # keys in chunks: each is a bound parameter, and both databases cap how many
                keys = sorted(set(item_pks))
                items = [it for i in range(0, len(keys), CHUNK)
                         for it in records(conn, q.where(col(Item.pk).in_(keys[i:i + CHUNK])).order_by(col(Item.pk)))]
            rows = item_rows(conn, [(it.pk, it.revision) for it in items], labels=labels)
        for it in items:
            yield it, fold_item(self.get_rubric(it.rubric_ref), rows[it.pk], how, all_revisions)

    def _refresh_safety(self, conn: Any, item_pks: Iterable[int]) -> None:
        """Write the items' derived safety status (and ``flagged``: the cap applies) onto their rows."""
        from sqlalchemy import update

        from reviewer.domain import item_safety
        from reviewer.store.queue import refresh_triage_keys

        pks = sorted(set(item_pks))
        if not pks:
            return
        items = conn.execute(select(col(Item.pk), col(Item.revision), col(Item.rubric_ref)).where(col(Item.pk).in_(pks))).all()
        rows = item_rows(conn, [(pk, rev) for pk, rev, _ in items])
        for pk, _, ref in items:
            r = rows[pk]
            state = item_safety([f for f in r.flags if f.revision == r.revision], r.decisions,
                                self.get_rubric(ref).review.safety_signoffs)
            conn.execute(update(Item).where(col(Item.pk) == pk).values(safety=state.status, flagged=state.capped))
        refresh_triage_keys(conn, "pk IN (" + ",".join(str(int(p)) for p in pks) + ")", {})

    def item_fold(self, item_pk: int, how: str = "mean") -> ItemFold:
        """One item's fold."""
        from reviewer.errors import UserError

        for _, fold in self.item_folds(item_pks=[item_pk], how=how):
            return fold
        raise UserError(f"no item with key {item_pk}")
