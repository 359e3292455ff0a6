"""What an import derives for each new item from its row, as the fold would for the same scores:
the judge's overall, band, verdict and headline score, how many people gave a complete review, and how far the
judge is from the people (its gap). The rows of a file give the same scores over and over, so each
is worked out once per distinct set of scores and remembered (:class:`Overall`)."""

from __future__ import annotations

from typing import Any

from reviewer.domain.labels import LABEL_KINDS
from reviewer.domain.records import PlainHuman, PlainJudge, Row
from reviewer.store.bulk import json_text
from rubrics.schema import Rubric

#: Distinct (dimension, judge, people) scores whose gap an import remembers (then it starts again).
GAP_CACHE = 100_000
#: A row with no other field than these stores the defaults of the others (no context, metadata…).
TEXT_ONLY = frozenset({"id", "input", "output", "judge", "human", "audit"})


class Overall:
    """The judge's overall, band and verdict per distinct set of scores, from the item's fold
    (:func:`reviewer.domain.judge_only`, the rule a judge run's refresh applies too): the file's
    judge scores, and people's scores on the dimensions only people score (``method: human``).
    Items of one file share few distinct score combinations (scales have a handful of levels), so
    each is computed once."""

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.human_only = {d.id for d in rubric.dimensions if d.method == "human"}
        self.seen: dict[tuple[Any, ...], tuple[float | None, str | None, bool | None, float | None]] = {}
        #: the dimensions one person scored (a set, or a plain entry's tuple) → a complete review?
        self.reviews: dict[Any, bool] = {}
        #: :func:`people_gap`'s results by the scores they came from
        self.gaps: dict[tuple[Any, ...], float | None] = {}
        #: the overall of plain judge scores (:class:`PlainJudge`), by their key
        self.plain: dict[tuple[Any, ...], tuple[float | None, str | None, bool | None, float | None]] = {}

    def __call__(self, r: Row) -> tuple[float | None, str | None, bool | None, float | None]:
        j = r.judge
        if type(j) is PlainJudge and not self.human_only:  # remembered by the scores as given
            plain = self.plain.get(j.key)
            if plain is None:
                plain = self.plain[j.key] = self._of(r)
            return plain
        return self._of(r)

    def _of(self, r: Row) -> tuple[float | None, str | None, bool | None, float | None]:
        judged = tuple((k, e.score, bool(e.error)) for k, e in r.judge.items())
        people = tuple((who, dim_id, score) for who, dim_id, score, *_ in r.human
                       if dim_id in self.human_only) if self.human_only and r.human else ()
        key = (judged, people)
        if key not in self.seen:
            from reviewer.domain import HumanRow, ItemRows, JudgeRow, fold_item, judge_only

            rows = ItemRows(0, judge=[JudgeRow(i, k, None, score, error="error" if err else None)
                                      for i, (k, score, err) in enumerate(judged)],
                            human=[HumanRow(i, dim_id, who, score, "import")
                                   for i, (who, dim_id, score) in enumerate(people)])
            agg = judge_only(self.rubric, fold_item(self.rubric, rows))
            self.seen[key] = (agg.overall, agg.item_band.label if agg.item_band else None,
                              agg.passed if agg.overall is not None else None, agg.headline)
        return self.seen[key]


def item_values(r: Row, pk: int, overall: Overall, as_text: bool = True) -> tuple[Any, ...]:
    """The item's values in ITEM_COLUMNS order (JSON columns as text for :func:`bulk_insert`)."""
    d = r.data
    total, band, passed, headline = overall(r)
    # every score a file gives is stored as kind "import": the file's complete reviews are label
    # reviews too exactly when that kind is a label (reviewer.domain.labels)
    done = reviews_done(overall.rubric, r, overall.reviews)
    labelled = done if "import" in LABEL_KINDS else 0
    if as_text and type(r.judge) is PlainJudge and d.keys() <= TEXT_ONLY:  # no errors; the rest absent
        return (pk, total, band, passed, 0, r.item_id, r.content_hash, str(d.get("input") or ""),
                str(d.get("output") or ""), "", "", "null", None, None, "{}", "null", False,
                done, labelled, people_gap(overall, r), headline)
    js = json_text if as_text else _same
    group, variant = d.get("group"), d.get("variant")
    return (pk, total, band, passed, sum(1 for e in r.judge.values() if e.error), r.item_id,
            r.content_hash, str(d.get("input") or ""), str(d.get("output") or ""),
            str(d.get("context") or ""), str(d.get("reference") or ""), js(d.get("conversation")),
            None if group is None else str(group), None if variant is None else str(variant),
            js(d.get("metadata") or {}), js(d.get("gold")), d.get("gold") is not None,
            done, labelled, people_gap(overall, r), headline)


def reviews_done(rubric: Rubric, r: Row, seen: dict[Any, bool] | None = None) -> int:
    """How many people the row's human entries show with a complete review
    (:func:`reviewer.domain.complete_reviews`): an imported review counts like one entered in the
    review screen. Every imported entry is a vote with a score (no undo, no adjudication), so
    each person's current votes are the dimensions they have an entry on; whether those make a
    complete review is :meth:`Rubric.review_complete`, asked once per distinct set (``seen``)."""
    if not r.human:
        return 0
    seen = {} if seen is None else seen
    h = r.human
    if type(h) is PlainHuman and h.distinct:  # each person's dimensions are their scores' keys
        done = 0
        for _, scores in h.by_person:
            if scores.dims not in seen:
                seen[scores.dims] = rubric.review_complete(frozenset(scores.dims))
            done += seen[scores.dims]
        return done
    by: dict[str, set[str]] = {}
    for reviewer, dim_id, *_ in r.human:
        by.setdefault(reviewer, set()).add(dim_id)
    done = 0
    for dims in by.values():
        key = frozenset(dims)
        if key not in seen:
            seen[key] = rubric.review_complete(key)
        done += seen[key]
    return done


def people_gap(overall: Overall, r: Row) -> float | None:
    """How far the row's judge scores are from its people's (:func:`reviewer.domain.human_gap` of
    the fold of the scores the row gives: all a new item, or a new content revision, has); None
    unless it gives both. Each dimension's gap is its own (that dimension's rows alone), so it is
    folded once per distinct (dimension, judge score, people's scores) and kept (``overall.gaps``).
    People's scores are the multiset of each person's last score there (what the fold keeps of
    imported votes; its consensus does not depend on names or order), so few keys recur."""
    if not r.human or not r.judge:
        return None
    h, judge = r.human, r.judge
    if type(h) is PlainHuman and h.distinct and h.dims is not None:  # a column of scores per dimension
        from reviewer.domain import item_gap

        gaps, found = overall.gaps, []
        for dim_id, votes in zip(h.dims, zip(*(s.scores for _, s in h.by_person), strict=True), strict=True):
            e = judge.get(dim_id)
            if e is not None:
                key = (dim_id, e.score, tuple(sorted(votes)))
                found.append(gaps[key] if key in gaps else _dim_gap(overall, key))
        return item_gap(found)
    people: dict[str, dict[str, float]] = {}
    for who, dim_id, score, *_ in r.human:
        if dim_id in r.judge:
            people.setdefault(dim_id, {})[who] = score
    from reviewer.domain import item_gap

    return item_gap(_dim_gap(overall, (dim_id, r.judge[dim_id].score, tuple(sorted(votes.values()))))
                    for dim_id, votes in people.items())


def _dim_gap(overall: Overall, key: tuple[str, float | None, tuple[float, ...]]) -> float | None:
    if key not in overall.gaps:
        from reviewer.domain import HumanRow, ItemRows, JudgeRow, dim_folds, dim_gap, sides

        rubric, (dim_id, judged, votes) = overall.rubric, key
        rows = ItemRows(0, judge=[JudgeRow(0, dim_id, None, judged)],
                        human=[HumanRow(i, dim_id, f"p{i}", score, "import") for i, score in enumerate(votes)])
        if len(overall.gaps) >= GAP_CACHE:
            overall.gaps.clear()
        overall.gaps[key] = dim_gap(rubric.dimension(dim_id), dim_folds(rubric, *sides(rubric, rows))[dim_id])
    return overall.gaps[key]


def _same(value: Any) -> Any:
    return value
