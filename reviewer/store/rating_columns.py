"""Calibration's read at scale: every rating row of a rubric version as numpy columns.

One read per table (:func:`reviewer.store.numeric_read.read_numeric`: on SQLite aggregated by the
database into a few long texts that numpy parses, elsewhere streamed into a numpy record array):
each row is its key, a packed integer of item, dimension, reviewer or model, kind, blind and
"current revision", and the score (and the judge's spread), decoded with array arithmetic — no
per-row dict or object is kept. Each code is as wide as its count needs (:class:`Layout`: 4,096
reviewers take 13 bits); an item key that does not fit beside them is read as a column of its own. On SQLite the judge rows and the two halves of the human rows
are read at once, each on a connection of its own whose snapshot is checked against the first's
(:meth:`reviewer.store.ratings.Ratings._beside`). The fold of the rows into per-item state is
:func:`reviewer.domain.columns.fold` (pure numpy).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from sqlalchemy import BigInteger, ColumnElement, Integer, case, cast, func, literal, select
from sqlmodel import col

from reviewer.domain.columns import KIND_CODES, OTHER_KIND, GroupKeys
from reviewer.errors import UserError
from reviewer.store.group_keys import group_values
from reviewer.store.numeric_read import read_numeric
from reviewer.store.tables import AuditSample, HumanScore, Item, ItemRevision, JudgeScore

T = TypeVar("T")
#: Packed rows as numpy columns by name (key, score, std, item: each of its own dtype).
Packed = dict[str, np.ndarray]

_KIND_BITS = 3
_FLAG_BITS = _KIND_BITS + 2  # kind, blind, current revision
if max(*KIND_CODES.values(), OTHER_KIND) >= 1 << _KIND_BITS:
    raise RuntimeError(f"a kind code does not fit in the packed key's {_KIND_BITS} bits")
#: The packed key is a signed 64-bit integer (both databases, numpy's int64).
_KEY_BITS = 63
#: Human score keys spanning at least this many are read in two halves at once (SQLite).
SPLIT_ROWS = 100_000


def _width(count: int) -> int:
    """Bits for the codes of ``count`` names: each name's position, and one more code (all bits
    set) for a name that is none of them."""
    return max(1, count.bit_length())


@dataclass(frozen=True)
class Layout:
    """How one read packs a row into integers, its widths chosen from what it codes: the
    dimension code and the reviewer's or model's code (each a position in its list, all bits set
    for a name not in it) above the flags; above them the item key when it fits in
    :data:`_KEY_BITS`, else the item key travels as a column of its own (``apart``)."""

    dim_bits: int
    who_bits: int
    apart: bool

    @classmethod
    def of(cls, n_dims: int, n_names: int, last_item: int) -> Layout:
        """The layout for ``n_dims`` dimensions, ``n_names`` names and item keys up to ``last_item``."""
        dim_bits, who_bits = _width(n_dims), _width(n_names)
        code_bits = _FLAG_BITS + dim_bits + who_bits
        if code_bits >= _KEY_BITS:
            raise UserError(f"{n_names} names and {n_dims} dimensions are more than one read can code "
                            f"({code_bits} bits of {_KEY_BITS}); read a smaller dataset at a time")
        return cls(dim_bits, who_bits, last_item >= 1 << (_KEY_BITS - code_bits))

    @property
    def code_bits(self) -> int:
        """The bits below the item key."""
        return _FLAG_BITS + self.dim_bits + self.who_bits

    def codes(self, column: Any, names: list[str], bits: int) -> Any:
        """SQL mapping each name to its position in ``names``, any other value to all ``bits`` set."""
        top = (1 << bits) - 1
        if len(names) > top:  # Layout.of chose the width from this count: never, unless misused
            raise RuntimeError(f"{len(names)} names do not fit in {bits} bits")
        if not names:
            return literal(top)
        return case({n: i for i, n in enumerate(names)}, value=column, else_=top)

    def pack(self, item: Any, dim: Any, who: Any, flags: Any) -> Any:
        """The packed key of a row (without the item key when ``apart``): one formula for SQL
        expressions and numpy arrays alike (only ``*`` and ``+``)."""
        code = (dim * (1 << self.who_bits) + who) * (1 << _FLAG_BITS) + flags
        return code if self.apart else item * (1 << self.code_bits) + code

    def item(self, rows: dict[str, np.ndarray]) -> np.ndarray:
        """The item key of each row read."""
        return rows["item"] if self.apart else rows["key"] >> self.code_bits

    def field(self, key: np.ndarray, shift: int, bits: int) -> np.ndarray:
        """The code ``bits`` wide ``shift`` bits above the flags, -1 where it is all bits set."""
        top = (1 << bits) - 1
        code = ((key >> (_FLAG_BITS + shift)) & top).astype(np.int32)
        code[code == top] = -1
        return code

    def who(self, key: np.ndarray) -> np.ndarray:
        """The reviewer or model code of each packed key (-1: a name not coded)."""
        return self.field(key, 0, self.who_bits)

    def dim(self, key: np.ndarray) -> np.ndarray:
        """The dimension code of each packed key (-1: a dimension not in the rubric)."""
        return self.field(key, self.who_bits, self.dim_bits)


def _items(conn: Any, where: list[ColumnElement[bool]], group_by: str | None) -> tuple[np.ndarray, GroupKeys | None]:
    """The keys of the items in scope, in order, and each one's group value when ``group_by``
    (``group``, ``variant`` or ``metadata.KEY``) is given."""
    if not group_by:
        return read_numeric(conn, col(Item.pk), where, {}, {})["pk"], None
    return group_values(conn, where, group_by)


def _thread(fn: Callable[[], T]) -> Future[T]:
    """``fn()`` on a thread of its own."""
    pool = ThreadPoolExecutor(1)
    try:
        return pool.submit(fn)
    finally:
        pool.shutdown(wait=False)


def _stamp(conn: Any, ref: str) -> tuple[Any, ...] | None:
    """What the rows read here depend on, as a few numbers that any write between two snapshots
    would change (SQLite; None elsewhere): the last keys of the append-only score and revision
    tables and of the items (a content revision adds an ``item_revision`` row), and the rubric's
    audit sample (count and key sum)."""
    if conn.dialect.name != "sqlite":
        return None
    last = [select(func.max(c)).scalar_subquery() for c in (col(HumanScore.pk), col(JudgeScore.pk), col(Item.pk),
                                                            col(ItemRevision.pk))]
    audit = select(func.count(), func.total(col(AuditSample.item_pk))).where(col(AuditSample.rubric_ref) == ref)
    return (ref, *conn.execute(select(*last)).one(), *conn.execute(audit).one())


#: A scope of at most this share of the items finds its reviewers by a DISTINCT over its rows.
DISTINCT_SHARE = 0.1


def reviewers_in_scope(conn: Any, scope: Any, rows: list[ColumnElement[bool]], walk: bool | None = None) -> list[str]:
    """The reviewers with a human score row on an item in ``scope`` that meets ``rows``, sorted.

    Two ways to the same names, by what each costs. A DISTINCT over the rows in scope costs what
    those rows do (a million rows sorted to find twenty names). The walk asks per distinct
    reviewer: the reviewers are stepped through the ``(reviewer, sample, pk)`` index (a skip scan:
    the next name above the last), each kept when one of their rows is in scope — a step per
    reviewer, plus the rows of a reviewer who scored nothing in scope (looked through for one).
    A scope of at most :data:`DISTINCT_SHARE` of the items takes the DISTINCT, a larger one the
    walk (``walk`` forces one)."""
    name = col(HumanScore.reviewer)
    if walk is None:
        inside = conn.execute(select(func.count()).select_from(scope.element.subquery())).scalar_one()
        every = conn.execute(select(func.count()).select_from(Item)).scalar_one()
        walk = inside > DISTINCT_SHARE * every
    if not walk:
        return sorted(conn.execute(select(name).distinct().where(col(HumanScore.item_pk).in_(scope), *rows)).scalars())
    names = select(func.min(name).label("name")).cte("reviewers", recursive=True)
    step = select(select(func.min(name)).where(name > names.c.name).scalar_subquery()).where(names.c.name.is_not(None))
    names = names.union_all(step)
    # ``item_pk + 0``: each reviewer's rows through the reviewer index, the scope tested per row
    mine = select(literal(1)).where(name == names.c.name, (col(HumanScore.item_pk) + 0).in_(scope), *rows)
    found = select(names.c.name).where(names.c.name.is_not(None), mine.exists())
    return sorted(str(n) for n in conn.execute(found).scalars())


def _unknown_names(rows: dict[str, np.ndarray], lay: Layout) -> bool:
    """Whether a packed row's reviewer or model was not among the names it was coded with."""
    return bool((lay.who(rows["key"]) < 0).any())



def packed(conn: Any, table: Any, scope: Any, dims: list[str], who: Any, names: list[str],
            last_item: int, human: bool, all_revisions: bool = False,
            keys: tuple[int, int] | None = None,
            rows: list[ColumnElement[bool]] | None = None) -> dict[str, np.ndarray]:
    """(packed key, score, std) per row of ``table`` for the items in ``scope`` that meet
    ``rows``, in pk order (``keys``: only rows with keys in that range), packed by
    :meth:`Layout.of` for these dimensions, names and item keys up to ``last_item``."""
    revision = getattr(table, "revision", None)  # content revisions: rows of older ones do not count
    current: ColumnElement[Any]
    if revision is not None and not all_revisions:
        current = case((revision == select(col(Item.revision)).where(col(Item.pk) == table.item_pk).scalar_subquery(), 1),
                       else_=0)
    else:
        current = literal(1)
    # ``item_pk + 0``: read the table in key order, testing each row against the scope, rather
    # than through the item index and then sorting every row by key (SQLite; PostgreSQL
    # plans the same either way)
    in_scope = (table.item_pk + 0).in_(scope)
    if human:
        kind = case(KIND_CODES, value=table.kind, else_=OTHER_KIND)
        flags = kind * 4 + cast(table.blind, Integer) * 2 + current
        cond = [in_scope, *(rows or ())]
    else:
        flags = current
        cond = [in_scope, table.turn.is_(None)]
    lay = Layout.of(len(dims), len(names), last_item)
    item = cast(table.item_pk, BigInteger)
    key = lay.pack(item, lay.codes(table.dimension, dims, lay.dim_bits), lay.codes(who, names, lay.who_bits), flags)
    ints = {"item": item, "key": key} if lay.apart else {"key": key}
    reals = {"score": table.score} if human else {"score": table.score, "std": table.std}
    return read_numeric(conn, table.pk, cond, ints, reals, keys)


def _unpack(rows: dict[str, np.ndarray], item_pk: np.ndarray, lay: Layout) -> dict[str, np.ndarray]:
    """Decode the packed keys; item keys become indexes into ``item_pk`` (sorted)."""
    key = rows["key"]
    flags = (key & ((1 << _FLAG_BITS) - 1)).astype(np.int8)
    item = np.searchsorted(item_pk, lay.item(rows))
    score = rows["score"]
    std = rows.get("std", np.zeros(0))
    return {"item": item, "dim": lay.dim(key), "who": lay.who(key), "score": score, "std": std,
            "kind": flags >> 2, "blind": (flags & 2) > 0, "current": (flags & 1) > 0}
