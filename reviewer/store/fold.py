"""The SQL that reads an item's rows for the domain fold (:mod:`reviewer.domain`), shared by the
doors that fold items (:meth:`reviewer.store.items.Items.item_folds`). Every read of an item's
state goes through here."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Integer, bindparam, literal, or_, select
from sqlmodel import col

from reviewer.domain import DecisionRow, FlagRow, HumanRow, ItemRows, JudgeRow
from reviewer.domain.labels import LABEL_KINDS, LABEL_QUEUE
from reviewer.store.safety import decision_person, with_reviewer
from reviewer.store.tables import HumanScore, JudgeScore, SafetyDecision, SafetyFlag

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


