"""Keys are coded one way: named ``str(key)`` (``1`` and ``"1"`` one group) and numbered in
code-point order of the names — by :func:`calibration.groups.group_names`, whether the keys come
one per item, as the store's values read once each (``GroupKeys`` → ``Keys.of``), or as the tidy
table's names."""

from __future__ import annotations

import json
import random

import numpy as np

from calibration.groups import Keys, group_codes, group_names
from reviewer.domain.columns import GroupKeys
from reviewer.services.tidy_build import name_codes

#: Keys of mixed types; ``"a\x00"`` and ``"a"`` differ only by a trailing NUL (which numpy's string
#: sort ignores), ``1``/``"1"`` and ``True``/``"True"`` share a name, ``1.0`` does not.
KEYS: list[object] = ["b", "a", "a\x00", "", 1, "1", 1.0, True, "True", None, "None", "é", "Z", "a ", 2**70, "Ω"]


def _reference(keys: list[object]) -> tuple[list[str], list[int]]:
    """The rule written out plainly."""
    names = sorted({str(k) for k in keys})
    return names, [names.index(str(k)) for k in keys]


def test_the_rule_names_by_str_and_numbers_in_code_point_order() -> None:
    rng = random.Random(4)
    for size in (0, 1, 7, 500):
        keys = [rng.choice(KEYS) for _ in range(size)]
        names, codes = group_names(keys)
        assert (names, codes.tolist()) == _reference(keys)
        assert group_codes(keys).tolist() == codes.tolist()
    names, codes = group_names([1, "1", "a\x00", "a"])
    assert names == ["1", "a", "a\x00"] and codes.tolist() == [0, 0, 2, 1]


def test_the_stores_values_read_once_are_coded_by_the_same_rule() -> None:
    """The store keeps each distinct JSON text once (``GroupKeys.of``: decoded once); the services
    name and number them with the rule — the codes each item would get from its own key."""
    rng = random.Random(8)
    texts = [json.dumps(rng.choice(KEYS)) for _ in range(400)] + ["1", "1.0", '"1"', "true", "null"]
    read = GroupKeys.of(texts, json.loads)
    assert len(read.values) == len(set(texts))
    assert read.per_item() == [json.loads(t) for t in texts]
    keys = Keys.of(read.values, read.codes)
    names, codes = _reference(read.per_item())
    assert keys.names == names and keys.codes.tolist() == codes


def test_the_tidy_tables_names_are_coded_by_the_same_rule() -> None:
    """A tidy batch's dimensions, models, reviewers and tag texts: codes in name order (the order
    the rows are sorted by), None the empty name."""
    rng = random.Random(2)
    names = [rng.choice(["ana", "Bo", "", None, "é", "bo", "ana "]) for _ in range(300)]
    codes, found = name_codes(names)
    want_names, want_codes = _reference(["" if n is None else n for n in names])
    assert found == want_names and codes.tolist() == want_codes and codes.dtype == np.int64
