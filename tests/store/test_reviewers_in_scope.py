"""The reviewers a read of the ratings codes are found per reviewer (a walk of the reviewer index)
for a large scope, by a DISTINCT over the rows in scope for a small one: the same names either
way, on random data, on both backends — reviewers with rows only in another dataset, only
outside the audit sample's labels, or only on items outside the sample are left out."""

from __future__ import annotations

import json
import random
from pathlib import Path

from sqlalchemy import ColumnElement, ScalarSelect
from sqlmodel import col, select

from reviewer.services.importing import import_file
from reviewer.store import Store
from reviewer.store.fold import label_rows
from reviewer.store.rating_columns import reviewers_in_scope
from reviewer.store.tables import AuditSample, HumanScore, Item
from tests.store.conftest import db_url, store  # noqa: F401  (fixtures)

REF = "general-quality@1.0.0"
#: Names that sort differently by bytes, by case and by locale, and one that is a prefix of another.
POOL = ["ana", "Ana", "bo", "bob", "é", "e", "z z", "Zoë", "lee", "名前"]


def _distinct(s: Store, scope: ScalarSelect[int], rows: list[ColumnElement[bool]]) -> list[str]:
    """The rule as a DISTINCT over every row in scope (what the walk must equal)."""
    with s.db.read() as conn:
        return sorted(conn.execute(select(col(HumanScore.reviewer)).distinct().where(
            col(HumanScore.item_pk).in_(scope), *rows)).scalars())


def test_the_walk_finds_the_reviewers_the_distinct_finds(store: Store, tmp_path: Path) -> None:  # noqa: F811
    rng = random.Random(11)
    for dataset in ("a", "b"):
        lines = []
        for i in range(12):
            who = rng.sample(POOL[:6] if dataset == "a" else POOL, rng.randint(0, 3))
            line: dict[str, object] = {"id": f"{dataset}{i}", "input": "q", "output": f"answer {i}",
                                       "human": [{"reviewer": w, "scores": {"accuracy": rng.randint(1, 5)}} for w in who]}
            if dataset == "b" and i % 3 == 0:
                line["audit"] = True
            lines.append(json.dumps(line))
        path = tmp_path / f"{dataset}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        import_file(store, path, REF, dataset=dataset)
    # scores given outside the audit queue on audit items: in scope, but not labels
    with store.db.read() as conn:
        audit_items = list(conn.execute(select(col(AuditSample.item_pk))).scalars())
    assert audit_items
    for name in ("kim", "Ωmega"):  # (names of their own: an imported name is bound to no login)
        store.scores.add_human_score(rng.choice(audit_items), "clarity", name, 3.0)
    cases: list[tuple[str | None, str]] = [("a", "all"), ("b", "all"), ("b", "audit"), (None, "all"), ("nothing", "all")]
    for subset, sample in cases:
        where: list[ColumnElement[bool]] = [col(Item.rubric_ref) == REF]
        if subset:
            where.append(col(Item.dataset) == subset)
        rows: list[ColumnElement[bool]] = []
        if sample == "audit":
            where.append(col(Item.pk).in_(select(col(AuditSample.item_pk))))
            rows.append(label_rows())
        scope = select(col(Item.pk)).where(*where).scalar_subquery()
        want = _distinct(store, scope, rows)
        with store.db.read() as conn:
            for walk in (True, False, None):  # the walk, the DISTINCT, and the one the scope's size picks
                assert reviewers_in_scope(conn, scope, rows, walk) == want, (subset, sample, walk)
        assert (subset, sample) == ("nothing", "all") or want  # (the cases are not all empty)
