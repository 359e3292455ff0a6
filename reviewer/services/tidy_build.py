"""One batch of the tidy table built as columns (:mod:`reviewer.services.tidy`): from the rows the
store read (:class:`reviewer.store.tidy_read.TidyBatch`) to an Arrow table, with array operations
and no object per score.

Which scores stand is the fold's rule: per judge model its latest item-level row on the item's
current content revision (:func:`reviewer.domain.judge.fold_judge`); per person and content
revision their standing vote and the settling adjudication of a lead
(:func:`reviewer.domain.standing.standing`, the rule of :func:`reviewer.domain.human.fold_human`
over columns, which calibrate's columns read too).
The rows come in the order the per-item reading gives them
(:func:`reviewer.domain.provenance.human_records`): item by item in key order, each item's
dimensions in the rubric's order; per dimension the judge models by name, then the current
revision's votes by reviewer and its adjudication, then each earlier revision's, newest first.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from calibration.groups import group_names
from reviewer.domain import NO_MODEL
from reviewer.domain.marks import Mark, mark_records
from reviewer.domain.standing import latest_per_key, standing
from reviewer.errors import UserError

if TYPE_CHECKING:
    import pyarrow as pa

    from reviewer.store.tidy_read import HumanColumns, TidyBatch
    from rubrics.schema import Rubric, Scale

Ints = NDArray[np.int64]
Floats = NDArray[np.float64]
#: A column of numbers, flags or times.
Values = NDArray[np.float64] | NDArray[np.int64] | NDArray[np.bool_] | NDArray[np.datetime64]
_NO_TAGS: list[str] = []


def name_codes(names: Sequence[str | None]) -> tuple[Ints, list[str]]:
    """Each name's code and the names by code, by the one coding of keys
    (:func:`calibration.groups.group_names`: a code's order is its name's order); None is the
    empty name."""
    found, codes = group_names(["" if n is None else n for n in names])
    return codes.astype(np.int64, copy=False), found


def _fits(*sizes: int) -> None:
    """A packed key numbers (item, revision, dimension, name) as one int64: refuse in one line
    when the product of the counts does not fit, rather than let a key wrap onto another."""
    space = 1
    for size in sizes:
        space *= max(size, 1)
    if space >= 1 << 63:
        raise UserError(f"{' × '.join(map(str, sizes))} (items × revisions × dimensions × names) are more than "
                        "one export batch can number; export one dataset at a time")


class _Dims:
    """The batch's dimensions, each (rubric, dimension id) one code, with its place in its
    rubric and its scales."""

    def __init__(self, rubrics: dict[str, Rubric]) -> None:
        self.code: dict[tuple[str, str], int] = {}
        self.name: list[str] = []
        self.position: list[int] = []
        self.scale: list[Scale] = []
        self.judge_scale: list[Scale] = []
        for ref, rubric in rubrics.items():
            for i, d in enumerate(rubric.dimensions):
                self.code[(ref, d.id)] = len(self.name)
                self.name.append(d.id)
                self.position.append(i)
                self.scale.append(d.scale)
                self.judge_scale.append(d.judge_scale or d.scale)

    def of_rows(self, refs: Sequence[str], item: Ints, dims: Sequence[str]) -> Ints:
        """Each row's dimension code (-1: not a dimension of its item's rubric): the rows'
        (rubric, dimension id) pairs looked up once per distinct pair."""
        dim_codes, dim_names = name_codes(dims)
        ref_codes, ref_names = name_codes(refs)
        table = np.array([[self.code.get((str(r), str(d)), -1) for d in dim_names] for r in ref_names],
                         dtype=np.int64).reshape(len(ref_names), len(dim_names))
        return table[ref_codes[item], dim_codes] if item.size else np.zeros(0, dtype=np.int64)

    def normalised(self, scores: Floats, codes: Ints, scales: list[Scale]) -> Floats:
        """Each score on [0, 1] by its dimension's scale (``scales`` by code), each distinct
        (dimension, score) normalised once by :meth:`Scale.normalise`."""
        out = np.full(scores.size, np.nan)
        for code in np.unique(codes).tolist():
            mine = codes == code
            values, inverse = np.unique(scores[mine], return_inverse=True)
            out[mine] = np.array([scales[code].normalise(float(v)) for v in values.tolist()])[inverse]
        return out


def _take(values: Sequence[object], at: Ints, kind: pa.DataType) -> pa.Array:
    import pyarrow as pa

    return pa.array(values, kind).take(pa.array(at, pa.int64()))


def _marks(marks: dict[int, list[Mark]], items: Ints, revisions: Ints, h: HumanColumns, hat: Ints,
           current: dict[int, int]) -> list[str]:
    """Each human row's marks (in output order) as JSON text: the span marks its author made on
    its item, dimension and revision (``[]`` for none). Marks are few: only the rows of items that
    have any are looked at one by one."""
    out = ["[]"] * hat.size
    if not any(marks.values()):
        return out
    by_key: dict[tuple[int, str, str, int], list[dict[str, object]]] = {}
    for pk, ms in marks.items():
        for record in mark_records(ms, current[pk]):
            by_key.setdefault((pk, str(record["author"]), str(record["dimension"]), int(record["revision"])),
                              []).append(record)
    for i in np.flatnonzero(np.isin(items, np.fromiter(marks, dtype=np.int64))).tolist():
        row = int(hat[i])
        own = by_key.get((int(items[i]), h.reviewer[row], h.dimension[row], int(revisions[i])))
        if own:
            out[i] = json.dumps(own, ensure_ascii=False)
    return out


def _in_order(is_human: NDArray[np.bool_], people: list[str]) -> pa.Array:
    """The marks column in output order: ``[]`` on the judge's rows, ``people`` (in the human
    rows' output order) on the people's."""
    import pyarrow as pa

    out = ["[]"] * is_human.size
    if people.count("[]") == len(people):  # (no marks in the batch: the common case)
        return pa.array(out, pa.string())
    for at, text in zip(np.flatnonzero(is_human).tolist(), people, strict=True):
        out[at] = text
    return pa.array(out, pa.string())


def batch_table(batch: TidyBatch, rubric_of: Callable[[str], Rubric], schema: pa.Schema,
                marks: dict[int, list[Mark]] | None = None) -> pa.Table:
    """The tidy rows of one batch of items, as an Arrow table of ``schema`` (``marks``: the
    items' span marks by item key, each on the row of its author, dimension and revision)."""
    import pyarrow as pa

    items, h, j = batch.items, batch.human, batch.judge
    dims = _Dims({ref: rubric_of(ref) for ref in dict.fromkeys(items.rubric_ref)})
    # --- judge: each model's latest item-level row on the item's current revision ---------
    j_item = np.searchsorted(items.pk, j.item_pk)
    j_dim = dims.of_rows(items.rubric_ref, j_item, j.dimension)
    # a model without a name is the panel's NO_MODEL, as in the fold (None, "" and "judge" are one)
    models, model_names = name_codes([m or NO_MODEL for m in j.model])
    keep = np.flatnonzero((j_dim >= 0) & (j.revision == items.revision[j_item]))
    _fits(items.pk.size, len(dims.name), len(model_names))
    jkey = (j_item[keep] * len(dims.name) + j_dim[keep]) * max(len(model_names), 1) + models[keep]
    jr = keep[latest_per_key(jkey, j.pk[keep])]
    # --- people: each reviewer's standing vote and the standing adjudication, per revision --
    h_item = np.searchsorted(items.pk, h.item_pk)
    h_dim = dims.of_rows(items.rubric_ref, h_item, h.dimension)
    who, who_names = name_codes(h.reviewer)
    kind = np.array(h.kind, dtype=object)
    inside = np.flatnonzero(h_dim >= 0)
    n_rev = int(h.revision.max()) + 1 if h.revision.size else 1
    _fits(items.pk.size, n_rev, len(dims.name), len(who_names))
    cell = (h_item[inside] * n_rev + h.revision[inside]) * len(dims.name) + h_dim[inside]
    hkey = cell * max(len(who_names), 1) + who[inside]
    st = standing(hkey, max(len(who_names), 1), h.pk[inside], kind[inside] == "adjudication",
                  (kind[inside] == "undo") | np.isnan(h.score[inside]))
    votes, adjs = st.votes, st.settled
    hr = inside[np.concatenate([votes, adjs])]
    is_adj = np.zeros(hr.size, dtype=bool)
    is_adj[votes.size:] = True
    # --- the order of the per-item reading ----------------------------------------------
    item = np.concatenate([j_item[jr], h_item[hr]])
    dim = np.concatenate([j_dim[jr], h_dim[hr]])
    human = np.zeros(item.size, dtype=bool)
    human[jr.size:] = True
    revision = np.concatenate([items.revision[j_item[jr]], h.revision[hr]])
    current = revision == items.revision[item]
    rank = np.concatenate([models[jr], np.where(is_adj, 0, who[hr])])  # (codes in name order)
    sub = np.concatenate([np.zeros(jr.size, dtype=np.int64), is_adj.astype(np.int64)])
    order = np.lexsort((rank, sub, -revision, ~current, human, np.array(dims.position)[dim] if dim.size else dim,
                        item))
    # positions into the judge rows and the human rows, in output order; ``pick`` into the
    # judge rows followed by the human rows (one take per column of values from both)
    at, is_human = np.concatenate([jr, hr])[order], human[order]
    jat, hat = at[~is_human], at[is_human]
    rows = np.where(is_human, at + j.pk.size, at)
    pick = pa.array(rows, pa.int64())

    def both(judged: Sequence[object], people: Sequence[object], kind: pa.DataType) -> pa.Array:
        """A column from a value per judge row and one per human row, in output order."""
        return pa.concat_arrays([pa.array(judged, kind), pa.array(people, kind)]).take(pick)

    def numbers(judged: Values, people: Values, kind: pa.DataType,
                judge_null: bool | NDArray[np.bool_] = False, human_null: bool = False) -> pa.Array:
        """A number column (NaN: null; ``*_null``: null on that side's rows), in output order."""
        out = np.empty(order.size, dtype=np.result_type(judged, people))
        out[~is_human], out[is_human] = judged, people
        mask = np.zeros(order.size, dtype=bool)
        mask[~is_human], mask[is_human] = judge_null, human_null
        if out.dtype.kind == "f":
            mask |= np.isnan(out)
        return pa.array(out, kind, mask=mask)

    item_o = item[order]
    j_norm = np.where(np.isnan(j.normalised[jat]),
                      dims.normalised(j.score[jat], j_dim[jat], dims.judge_scale), j.normalised[jat])
    h_norm = dims.normalised(h.score[hat], h_dim[hat], dims.scale)
    tag_codes, tag_texts = name_codes(h.tags)  # each distinct stored text parsed once
    tag_lists = [[str(t) for t in (json.loads(text) if text else None) or ()] for text in tag_texts]
    from reviewer.services.tidy import trace_id

    columns = {
        "rubric": _take(items.rubric_ref, item_o, pa.string()),
        "dataset": _take(items.dataset, item_o, pa.string()),
        "item_id": _take(items.item_id, item_o, pa.string()),
        "revision": pa.array(revision[order], pa.int64()),
        "current_revision": pa.array(current[order], pa.bool_()),
        "dimension": _take(dims.name, dim[order], pa.string()),
        "scorer_type": _take(["judge", "human"], is_human.astype(np.int64), pa.string()),
        "scorer": _take([*model_names, *who_names], np.concatenate([models, who + len(model_names)])[rows],
                        pa.string()),
        "kind": both([s or "judge" for s in j.source], h.kind, pa.string()),
        "score": numbers(j.score[jat], h.score[hat], pa.float64()),
        "normalised": numbers(j_norm, h_norm, pa.float64()),
        "reason": both([r or None for r in j.rationale], h.reason, pa.string()),
        "error": both(j.error, [None] * len(h.kind), pa.string()),
        "not_applicable": numbers(j.not_applicable[jat], np.zeros(hat.size, dtype=bool), pa.bool_()),
        "tags": _take([_NO_TAGS, *tag_lists], np.concatenate([np.zeros(j.pk.size, dtype=np.int64), tag_codes + 1])[rows],
                      pa.list_(pa.string())),
        "blind": numbers(np.zeros(jat.size, dtype=bool), h.blind[hat], pa.bool_(), judge_null=True),
        "run": numbers(j.run[jat], np.zeros(hat.size, dtype=np.int64), pa.int64(), judge_null=j.run[jat] < 0,
                       human_null=True),
        "created_at": numbers(j.created_at[jat], h.created_at[hat], pa.timestamp("us", tz="UTC")),
        "trace_id": _take([trace_id(m) for m in items.meta], item_o, pa.string()),
        "metadata": _take([json.dumps(m or {}, ensure_ascii=False, sort_keys=True) for m in items.meta], item_o,
                          pa.string()),
        "marks": _in_order(is_human, _marks(marks or {}, h.item_pk[hat], h.revision[hat], h, hat,
                                            dict(zip(items.pk.tolist(), items.revision.tolist(), strict=True)))),
    }
    return pa.Table.from_arrays([columns[f.name] for f in schema], schema=schema)
