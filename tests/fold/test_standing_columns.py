"""One rule for which scores stand: the columnar rule (reviewer.domain.standing, read by
calibrate's columns and the tidy table) equals the per-item fold (``fold_item``) on many random
histories — votes, re-votes, undos, rows without a score, blind votes revised after the reveal,
adjudications by two leads, several content revisions, several judge models with failed calls —
given to it in written order and shuffled."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from reviewer.domain.columns import KIND_CODES, RawColumns, fold
from reviewer.domain.item import fold_item
from reviewer.domain.rows import HumanRow, ItemRows, JudgeRow
from reviewer.domain.standing import latest_per_key, standing
from rubrics.loader import load_rubric_text

RUBRIC = load_rubric_text((Path(__file__).parent / "fold-test.yaml").read_text(encoding="utf-8"), "fold-test.yaml")
DIMS = [d.id for d in RUBRIC.dimensions]
PEOPLE = ("ana", "ben", "cy")
LEADS = ("lee", "kim")
WHO = (*PEOPLE, *LEADS)
MODELS = ("m1", "m2", "m3")
KINDS = ("score", "agree", "revision", "import")


def _items(rnd: random.Random, n: int) -> list[ItemRows]:
    """``n`` items with random histories, pks in written order across all of them."""
    pk = iter(range(1, 1 << 30))
    items = [ItemRows(i + 1, revision=rnd.randint(1, 3)) for i in range(n)]
    for _ in range(n * 30):
        it = rnd.choice(items)
        rev = rnd.randint(1, it.revision)
        dim = rnd.choice(DIMS)
        roll = rnd.random()
        if roll < 0.3:
            score = None if rnd.random() < 0.15 else float(rnd.randint(1, 5))
            it.judge.append(JudgeRow(next(pk), dim, rnd.choice(MODELS), score, error=None if score else "timeout",
                                     revision=rev))
            continue
        who = rnd.choice(WHO)
        if roll < 0.42:
            it.human.append(HumanRow(next(pk), dim, who, None, "undo", revision=rev))
        elif roll < 0.46:  # a row of a scoring kind that carries no score withdraws as an undo does
            it.human.append(HumanRow(next(pk), dim, who, None, rnd.choice(KINDS), revision=rev))
        elif roll < 0.6 and who in LEADS:
            it.human.append(HumanRow(next(pk), dim, who, float(rnd.randint(1, 5)), "adjudication", revision=rev))
        else:
            it.human.append(HumanRow(next(pk), dim, who, float(rnd.randint(1, 5)), rnd.choice(KINDS),
                                     blind=rnd.random() < 0.4, revision=rev))
    return items


#: Per (item, revision, dimension): the standing votes (reviewer → (pk, first blind score)), the
#: settling adjudication's pk, and each model's latest row's pk.
Stands = dict[tuple[int, int, str], tuple[dict[str, tuple[int, float | None]], int | None, dict[str, int]]]


def _expected(items: list[ItemRows]) -> Stands:
    """What stands by ``fold_item``, each revision folded as if it were the item's current one."""
    out: Stands = {}
    for it in items:
        for rev in range(1, it.revision + 1):
            f = fold_item(RUBRIC, replace(it, revision=rev))
            for d, df in f.dims.items():
                votes = {w: (v.pk, v.first_blind) for w, v in df.human.votes.items()}
                adj = df.human.adjudication.pk if df.human.adjudication else None
                models = {m: r.pk for m, r in df.judge.models.items()}
                if votes or adj is not None or models:
                    out[(it.item_pk, rev, d)] = (votes, adj, models)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_columnar_rule_is_the_folds(seed: int) -> None:
    rnd = random.Random(seed)
    items = _items(rnd, rnd.randint(1, 12))
    expected = _expected(items)
    h = [(it.item_pk, r) for it in items for r in it.human]
    j = [(it.item_pk, r) for it in items for r in it.judge]
    if seed % 2:  # rows in any order: the rule orders them by pk itself
        rnd.shuffle(h)
        rnd.shuffle(j)
    n_rev, names = 4, len(WHO)

    def cell(item: int, rev: int, dim: str) -> int:
        return (item * n_rev + rev) * len(DIMS) + DIMS.index(dim)

    key = np.array([cell(i, r.revision, r.dimension) * names + WHO.index(r.reviewer) for i, r in h], dtype=np.int64)
    pk = np.array([r.pk for _, r in h], dtype=np.int64)
    st = standing(key, names, pk, np.array([r.kind == "adjudication" for _, r in h], dtype=bool),
                  np.array([r.kind == "undo" or r.score is None for _, r in h], dtype=bool),
                  np.array([r.blind for _, r in h], dtype=bool))
    assert np.all(np.diff(key[st.votes]) > 0), "one vote per key, in key order"
    got: Stands = {}
    for at, fb in zip(st.votes.tolist(), st.first_blind.tolist(), strict=True):
        i, r = h[at]
        got.setdefault((i, r.revision, r.dimension), ({}, None, {}))[0][r.reviewer] = (
            r.pk, None if fb < 0 else h[fb][1].score)
    for at in st.settled.tolist():
        i, r = h[at]
        votes, adj, models = got.get((i, r.revision, r.dimension), ({}, None, {}))
        assert adj is None, "one settling adjudication per cell"
        got[(i, r.revision, r.dimension)] = (votes, r.pk, models)
    j_key = np.array([cell(i, r.revision, r.dimension) * len(MODELS) + MODELS.index(str(r.model)) for i, r in j],
                     dtype=np.int64)
    for at in latest_per_key(j_key, np.array([r.pk for _, r in j], dtype=np.int64)).tolist():
        i, r = j[at]
        got.setdefault((i, r.revision, r.dimension), ({}, None, {}))[2][str(r.model)] = r.pk
    assert got == expected


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("sample", ["all", "blind"])
def test_calibrates_columns_are_the_folds(seed: int, sample: str) -> None:
    """``columns.fold`` (rows in written order, the current revision's marked) holds each item's
    fold: every standing vote (or its first blind score), the settling adjudication, each model's
    latest score, and each blind vote revised after the reveal."""
    rnd = random.Random(1000 + seed)
    items = _items(rnd, rnd.randint(1, 12))
    current = {it.item_pk: it.revision for it in items}
    at = {it.item_pk: i for i, it in enumerate(items)}
    h = sorted(((it.item_pk, r) for it in items for r in it.human), key=lambda x: x[1].pk)
    j = sorted(((it.item_pk, r) for it in items for r in it.judge), key=lambda x: x[1].pk)
    raw = RawColumns(
        np.array([it.item_pk for it in items], dtype=np.int64), list(DIMS), list(WHO), list(MODELS),
        np.array([at[i] for i, _ in h], dtype=np.int64), np.array([DIMS.index(r.dimension) for _, r in h]),
        np.array([WHO.index(r.reviewer) for _, r in h]),
        np.array([np.nan if r.score is None else r.score for _, r in h], dtype=np.float64),
        np.array([KIND_CODES[r.kind] for _, r in h]), np.array([r.blind for _, r in h], dtype=bool),
        np.array([r.revision == current[i] for i, r in h], dtype=bool),
        np.array([at[i] for i, _ in j], dtype=np.int64), np.array([DIMS.index(r.dimension) for _, r in j]),
        np.array([MODELS.index(str(r.model)) for _, r in j]),
        np.array([np.nan if r.score is None else r.score for _, r in j], dtype=np.float64),
        np.full(len(j), np.nan), np.array([r.revision == current[i] for i, r in j], dtype=bool))
    cols = fold(raw, sample)
    for it in items:
        f = fold_item(RUBRIC, it)
        row = at[it.item_pk]
        for d, df in f.dims.items():
            dc = cols.dims[d]
            want = {w: v.first_blind if sample == "blind" else v.score for w, v in df.human.votes.items()}
            have = {w: float(dc.humans[row, c]) for c, w in enumerate(cols.reviewers)
                    if not np.isnan(dc.humans[row, c])}
            assert have == {w: s for w, s in want.items() if s is not None}, (it.item_pk, d)
            adj = df.human.adjudication.score if df.human.adjudication else None
            assert (None if np.isnan(dc.adjudicated[row]) else float(dc.adjudicated[row])) == adj
            assert {m: float(dc.judge[row, c]) for c, m in enumerate(cols.models)
                    if not np.isnan(dc.judge[row, c])} == df.judge.scores
            moved = sorted((v.first_blind, v.score) for v in df.human.votes.values()
                           if v.kind == "revision" and v.first_blind is not None)
            assert sorted(map(tuple, dc.revised[dc.revised[:, 0] == row][:, 1:].tolist())) == moved
