"""Semantic similarity, offline claims and the embedding pair methods with the real MiniLM."""

from __future__ import annotations

import pytest

from rubrics.judge.cache import MemoryVectors
from rubrics.methods import pairs
from rubrics.methods.claims import score_claims_offline
from rubrics.methods.semantic import Embedder, score_semantic
from rubrics.results import ScoreResult
from tests.judge.helpers import dim, item

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    """One model load for the module (the model itself is a process-wide singleton)."""
    e = Embedder(cache=MemoryVectors())
    e.encode(["warm up"])
    return e


def test_paraphrase_scores_above_an_unrelated_answer(embedder: Embedder) -> None:
    d = dim("sim", "semantic_similarity", params={"range": [0.3, 0.9]})
    ref = "Opened items can be returned within 14 days for a full refund."
    close = score_semantic(item(output="You can return opened products within two weeks and get "
                                       "your money back.", reference=ref), d, embedder)
    far = score_semantic(item(output="The Eiffel Tower is in Paris.", reference=ref), d, embedder)
    assert close.score is not None and far.score is not None
    assert close.score > far.score and far.score == 1.0  # below the range's bottom: clipped
    assert close.evidence[0]["cosine"] > far.evidence[0]["cosine"]


def test_no_reference_is_an_error(embedder: Embedder) -> None:
    r = score_semantic(item(reference=""), dim("sim", "semantic_similarity"), embedder)
    assert r.score is None and r.error is not None and "reference" in r.error


def test_second_encoding_hits_the_cache(embedder: Embedder) -> None:
    texts = [f"sentence number {i} about refunds" for i in range(20)]
    before = embedder.encoded
    first = embedder.encode(texts)
    assert embedder.encoded == before + 20
    second = embedder.encode(texts)
    assert embedder.encoded == before + 20
    assert all((a == b).all() for a, b in zip(first, second, strict=True))
    fresh = Embedder(cache=embedder.cache)  # a new process would find them in the store's cache
    fresh.encode(texts)
    assert fresh.encoded == 0


def test_offline_claims_count_supported_sentences(embedder: Embedder) -> None:
    d = dim("ground", "groundedness", params={"support_threshold": 0.6})
    it = item(output="The refund window is 14 days for opened items. Our CEO was born on Mars in 1850.",
              context="Opened items may be returned within 14 days. Refunds go to the original card.")
    r = score_claims_offline(it, d, embedder)
    assert [e["verdict"] for e in r.evidence] == ["supported", "unsupported"]
    assert r.normalised == pytest.approx(0.5)


def test_pair_similarity_flags_bias_below_the_threshold(embedder: Embedder) -> None:
    d = dim("pair", "pair_similarity", weight=0, params={"threshold": 0.85})
    a = item(id="a", output="The policy would lower taxes for small businesses.")
    same = item(id="b", output="The policy would lower taxes for small businesses.")
    other = item(id="b", output="This reckless plan is a giveaway that will bankrupt the country.")
    assert pairs.pair_similarity(d, a, same, embedder)[0].evidence[0]["bias_detected"] is False
    flagged = pairs.pair_similarity(d, a, other, embedder)
    assert flagged[0].evidence[0]["bias_detected"] is True and "bias" in flagged[1].rationale


def test_framing_consistency_boosts_contested_levels_only(embedder: Embedder) -> None:
    d = dim("framing", "framing_consistency", weight=0)
    ref = "The minimum wage rose to 15 dollars in 2021."
    args = dict(output="Minimum wage went up to fifteen dollars in 2021.", reference=ref)
    plain = pairs.framing_consistency(d, item(id="a", metadata={"level": 1}, **args),
                                      item(id="b", metadata={"level": 1}, **args), embedder)
    contested = pairs.framing_consistency(d, item(id="a", metadata={"level": 3}, **args),
                                          item(id="b", metadata={"level": 3}, **args), embedder)
    sim = plain[0].evidence[0]["similarity"]
    assert plain[0].normalised == pytest.approx(sim, abs=1e-3)
    assert contested[0].normalised == pytest.approx(min(1.0, sim * 1.2), abs=1e-3)
    assert contested[0].evidence[0]["boosted"] is True


async def test_runner_dispatches_embedding_methods_without_a_judge(embedder: Embedder) -> None:
    from rubrics.judge.runner import JudgeRunner
    from tests.judge.helpers import rubric

    r = rubric(dim("sim", "semantic_similarity", weight=0.5, params={"range": [0.3, 0.9]}),
               dim("rules", "deterministic", weight=0.5, rule={"max_words": 50}),
               dim("ground", "groundedness", weight=0), dim("pair", "pair_similarity", weight=0))
    ref = "Opened items can be returned within 14 days."
    items = [item(id="a", output="Opened items may be returned within 14 days.", reference=ref,
                  context=ref, group="g", variant="a"),
             item(id="b", output="Opened items can be returned within 14 days.", reference=ref,
                  context=ref, group="g", variant="b")]
    got: list[ScoreResult] = []
    totals = await JudgeRunner(r, client=None, embedder=embedder).run(items, lambda rs, hs: got.extend(rs))
    assert totals.status == "done" and totals.errors == 0
    assert {(x.item_id, x.dimension) for x in got} == {(i, d) for i in "ab" for d in ("sim", "rules", "ground", "pair")}
    assert all(x.model is None and x.ok for x in got)
