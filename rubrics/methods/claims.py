"""claim_pipeline (hallucination risk) and groundedness: the share of the output's claims that
the reference (or the retrieved context) supports.

With a judge, two calls: one splits the output into atomic claims, one checks every claim against
the source. Offline (``params.checker: embedding``, or no judge model), claims are the output's
sentences and a claim is supported when its best cosine to a source sentence reaches
``params.support_threshold`` (0.6 by default). Every claim and its verdict is stored as evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rubrics.judge.client import JudgeClient
from rubrics.judge.parse import ReplyError
from rubrics.judge.prompt import SYSTEM, BuiltPrompt, Sandbox
from rubrics.methods.base import JudgeItem, failed, from_unit, scored
from rubrics.methods.semantic import Embedder, cosine
from rubrics.results import ScoreResult
from rubrics.schema import Dimension

VERDICTS = ("supported", "contradicted", "unsupported")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences with at least three words (fragments carry no checkable claim)."""
    return [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 3]


def source_of(item: JudgeItem, dim: Dimension) -> tuple[str, str]:
    """What the claims are checked against, and its name: groundedness prefers the context,
    claim_pipeline the reference."""
    order = ("context", "reference") if dim.method == "groundedness" else ("reference", "context")
    for name in order:
        text = getattr(item, name)
        if text.strip():
            return name, text
    return "", ""


def split_prompt(item: JudgeItem) -> BuiltPrompt:
    """Ask for the output's atomic factual claims."""
    box = Sandbox()
    user = (
        "List every atomic factual claim the output makes (one checkable statement each, in the "
        "output's own words; skip opinions and greetings).\n\n"
        f"{box.wrap('OUTPUT', item.output)}\n\n"
        'Reply with only this JSON object: {"claims": ["<claim>", ...]}'
    )
    schema = {"type": "object", "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
              "required": ["claims"], "additionalProperties": False}
    return box.finish(SYSTEM, user, schema)


def verify_prompt(claims: list[str], source_name: str, source: str) -> BuiltPrompt:
    """Ask for a verdict on every claim against the source."""
    box = Sandbox()
    listed = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
    user = (
        f"Check each claim against the {source_name} only (not your own knowledge).\n\n"
        f"{box.wrap(source_name.upper(), source)}\n\n{box.wrap('CLAIMS', listed)}\n\n"
        "Reply with only this JSON object, one verdict per claim in order: "
        '{"verdicts": [{"claim": "<claim>", "verdict": "supported|contradicted|unsupported", '
        '"quote": "<the supporting or contradicting words from the source, or empty>"}]}'
    )
    verdict = {"type": "object", "properties": {"claim": {"type": "string"},
               "verdict": {"type": "string", "enum": list(VERDICTS)}, "quote": {"type": "string"}},
               "required": ["claim", "verdict", "quote"], "additionalProperties": False}
    schema = {"type": "object", "properties": {"verdicts": {"type": "array", "items": verdict}},
              "required": ["verdicts"], "additionalProperties": False}
    return box.finish(SYSTEM, user, schema)


def _claims(answer: dict[str, Any]) -> list[str]:
    claims = answer.get("claims")
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        raise ReplyError('"claims" must be a list of strings')
    return [c.strip() for c in claims if c.strip()]


def _verdicts(n: int) -> Any:
    def validate(answer: dict[str, Any]) -> list[dict[str, Any]]:
        items = answer.get("verdicts")
        if not isinstance(items, list) or len(items) != n:
            raise ReplyError(f'"verdicts" must list exactly {n} verdicts, one per claim')
        out = []
        for entry in items:
            verdict = str(entry.get("verdict", "")).lower() if isinstance(entry, Mapping) else ""
            if verdict not in VERDICTS:
                raise ReplyError(f"each verdict must be one of {', '.join(VERDICTS)}")
            out.append({"verdict": verdict, "quote": str(entry.get("quote", ""))})
        return out

    return validate


def _result(item: JudgeItem, dim: Dimension, evidence: list[dict[str, Any]], source: str,
            **fields: Any) -> ScoreResult:
    total = len(evidence)
    supported = sum(1 for e in evidence if e["verdict"] == "supported")
    share = supported / total if total else 1.0
    rationale = (f"{supported}/{total} claims supported by the {source}" if total
                 else "no checkable claims in the output")
    return scored(item, dim, from_unit(dim, share), rationale=rationale, evidence=evidence, **fields)


def _offline_parts(item: JudgeItem, dim: Dimension) -> tuple[list[str], list[str]]:
    """The output's sentence claims and the source's sentences (none without a source)."""
    source = source_of(item, dim)[1]
    if not source:
        return [], []
    return split_sentences(item.output), split_sentences(source) or [source]


def claims_texts(item: JudgeItem, dim: Dimension) -> list[str]:
    """The texts :func:`score_claims_offline` encodes for an item."""
    claims, source_sentences = _offline_parts(item, dim)
    return claims + source_sentences


def score_claims_offline(item: JudgeItem, dim: Dimension, embedder: Embedder) -> ScoreResult:
    """Sentence claims, each supported when close enough to some source sentence."""
    source_name, source = source_of(item, dim)
    if not source:
        return failed(item, dim, "nothing to check claims against: give a reference or context")
    threshold = float(dim.params.get("support_threshold", 0.6))
    claims, source_sentences = _offline_parts(item, dim)
    vectors = embedder.encode(claims + source_sentences)
    claim_vecs, source_vecs = vectors[: len(claims)], vectors[len(claims):]
    evidence = []
    for claim, vec in zip(claims, claim_vecs, strict=True):
        support = max(cosine(vec, s) for s in source_vecs)
        verdict = "supported" if support >= threshold else "unsupported"
        evidence.append({"claim": claim, "verdict": verdict, "support": round(support, 4)})
    return _result(item, dim, evidence, source_name)


async def score_claims_judge(item: JudgeItem, dim: Dimension, client: JudgeClient) -> ScoreResult:
    """Claims split and checked by the judge (two calls)."""
    source_name, source = source_of(item, dim)
    if not source:
        return failed(item, dim, "nothing to check claims against: give a reference or context")
    split = split_prompt(item)
    got = await client.judge(split, _claims)
    common: dict[str, Any] = {"model": client.model, "prompt_hash": split.prompt_hash}
    if got.value is None:
        return failed(item, dim, f"claim split: {got.error}", raw_reply=got.raw,
                      cost_usd=got.cost_usd, tokens_in=got.tokens_in, tokens_out=got.tokens_out, **common)
    claims = got.value
    cost, tin, tout, cached = got.cost_usd, got.tokens_in, got.tokens_out, got.cached
    verdicts: list[dict[str, Any]] = []
    if claims:
        checked = await client.judge(verify_prompt(claims, source_name, source), _verdicts(len(claims)))
        cost, tin, tout = cost + checked.cost_usd, tin + checked.tokens_in, tout + checked.tokens_out
        cached = cached and checked.cached
        if checked.value is None:
            return failed(item, dim, f"claim check: {checked.error}", raw_reply=checked.raw,
                          cost_usd=cost, tokens_in=tin, tokens_out=tout, **common)
        verdicts = checked.value
    evidence = [{"claim": c, "verdict": v["verdict"], "support": v["quote"]}
                for c, v in zip(claims, verdicts, strict=True)]
    return _result(item, dim, evidence, source_name, cost_usd=cost, tokens_in=tin,
                   tokens_out=tout, cached=cached, **common)
