"""The common row of an item file, checked in a few steps: an id, the output text (and input
text), a judge's whole-number scores and people's whole-number scores, nothing else.

:func:`reviewer.io.rowcheck.check_row` checks every shape a row may take and words every problem;
most rows of a large file take one shape, and most of that check's time goes to asking which.
:meth:`PlainCheck.row` accepts only rows of the common shape that the full check accepts, and
gives the same :class:`Row` for them (its judge and human parts as :class:`PlainJudge` and
:class:`PlainHuman`, which read like the full check's dict and list). Anything else — another
field, a score given as a float, text or an object, a name or score the full check would refuse —
gets None, and the caller hands the row to the full check, which accepts it or words the problem.

A file repeats a few score objects on every line (a scale has a handful of levels): each distinct
one is checked once and shared by the rows that give it. Only whole numbers go by that route, as
``True``/``1``/``1.0`` are equal dictionary keys while the full check refuses ``True`` and keeps
``-0.0`` apart from ``0``.
"""

from __future__ import annotations

from typing import Any

from reviewer.domain.itemlimits import MAX_ID_CHARS, name_problem
from reviewer.domain.records import PlainHuman, PlainJudge, PlainScores, Row
from reviewer.io.rowcheck import RubricScales, content_hash

#: The fields of the common row (any other, even a known one, goes to the full check).
FIELDS = frozenset({"id", "input", "output", "judge", "human", "audit"})
JUDGE_FIELDS = frozenset({"model", "scores"})
ENTRY_FIELDS = frozenset({"reviewer", "scores"})
_WHOLE = frozenset({int})
#: How many distinct score objects one file's check remembers (then it starts again).
_MAX_SETS = 100_000
_EMPTY_JUDGE = PlainJudge(())
_NO_HUMAN = PlainHuman([])


class PlainCheck:
    """The common-row check of one file (see the module): its memory of score objects."""

    def __init__(self, scales: RubricScales) -> None:
        self.scales = scales
        self.judge_sets: dict[tuple[tuple[str, int], ...], PlainJudge | None] = {}
        self.human_sets: dict[tuple[tuple[str, int], ...], PlainScores | None] = {}
        #: reviewer names the full check accepts
        self.good_names: set[str] = set()

    def row(self, n: int, obj: dict[str, Any]) -> Row | None:
        """Line ``n``'s :class:`Row` as :func:`check_row` gives it, or None: check it in full."""
        if not obj.keys() <= FIELDS:
            return None
        item_id = obj.get("id")
        if type(item_id) is not str or not item_id or name_problem(item_id, "the id", MAX_ID_CHARS) is not None:
            return None
        if type(obj.get("output")) is not str or type(obj.get("input", "")) is not str:
            return None
        audit = obj.get("audit", False)
        if type(audit) is not bool:
            return None
        model = None
        if "judge" in obj:
            j = obj["judge"]
            if type(j) is not dict or not j.keys() <= JUDGE_FIELDS:
                return None
            model = j.get("model")
            if model is not None and (type(model) is not str
                                      or self.scales.name_problem(model, "the judge model") is not None):
                return None
            judge = self._judge(j.get("scores"))
            if judge is None:
                return None
        else:
            judge = _EMPTY_JUDGE
        entries = obj.get("human")
        human = self._human(entries) if entries else _NO_HUMAN
        if human is None:
            return None
        return Row(n, item_id, obj, content_hash(obj), model, judge, human, audit)

    def _judge(self, scores: Any) -> PlainJudge | None:
        if type(scores) is not dict or not _WHOLE.issuperset(map(type, scores.values())):
            return None
        key = tuple(scores.items())
        if key not in self.judge_sets:
            if len(self.judge_sets) >= _MAX_SETS:
                self.judge_sets.clear()
            plain = self.scales.judge_plain
            self.judge_sets[key] = PlainJudge(key) if all(plain(dim_id, score) for dim_id, score in key) else None
        return self.judge_sets[key]

    def _human(self, entries: Any) -> PlainHuman | None:
        if type(entries) is not list:
            return None
        by_person: list[tuple[str, PlainScores]] = []
        for h in entries:
            if type(h) is not dict or h.keys() != ENTRY_FIELDS:
                return None
            who, scores = h["reviewer"], h["scores"]
            if type(who) is not str or type(scores) is not dict or not _WHOLE.issuperset(map(type, scores.values())):
                return None
            if who not in self.good_names:
                if self.scales.name_problem(who, "the reviewer name") is not None:
                    return None
                if len(self.good_names) < _MAX_SETS:
                    self.good_names.add(who)
            key = tuple(scores.items())
            if key not in self.human_sets:
                if len(self.human_sets) >= _MAX_SETS:
                    self.human_sets.clear()
                self.human_sets[key] = self._human_set(key)
            checked = self.human_sets[key]
            if checked is None:
                return None
            by_person.append((who, checked))
        return PlainHuman(by_person)

    def _human_set(self, key: tuple[tuple[str, int], ...]) -> PlainScores | None:
        """A person's scores: each a level of its dimension's scale (none given: the full check)."""
        plain = self.scales.human_plain
        if not key or not all(plain(dim_id, score) for dim_id, score in key):
            return None
        return PlainScores(tuple(d for d, _ in key), tuple(float(s) for _, s in key))


__all__ = ["PlainCheck"]
