"""The llm_judge method: one structured call per dimension (G-Eval's shape), or every dimension
in one call (combined mode), with N samples stored apart and summarised by mean and spread."""

from __future__ import annotations

import asyncio
import statistics
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from rubrics.judge.client import REASK, REASK_LAST_LINE, JudgeClient, Outcome
from rubrics.judge.parse import (
    ReplyError,
    choice_score,
    confidence_of,
    evidence_of,
    extract_json,
    last_line_choice,
    number_on_scale,
)
from rubrics.judge.prompt import build_combined_prompt, build_dimension_prompt
from rubrics.methods.base import JudgeItem, effective_scale, failed, scored
from rubrics.results import ScoreResult
from rubrics.schema import Dimension, Scale

T = TypeVar("T")


@dataclass
class Judgement:
    """One validated answer for one dimension."""

    score: float
    rationale: str = ""
    evidence: list[Any] = field(default_factory=list)
    confidence: float | None = None
    choice: str | None = None
    #: The overall the judge stated beside the dimensions (the flat reply's ``overall``), if it did.
    stated_overall: float | None = None


def parse_judgement(answer: Mapping[str, Any], dim: Dimension) -> Judgement:
    """Validate a ``{score|choice, rationale, evidence, confidence}`` answer for ``dim``."""
    if dim.choices:
        choice, value = choice_score(answer.get("choice", answer.get("answer")), dim.choices)
    else:
        choice, value = None, number_on_scale(answer.get("score"), effective_scale(dim))
    rationale = answer.get("rationale", "")
    return Judgement(
        score=value,
        rationale=rationale if isinstance(rationale, str) else str(rationale),
        evidence=evidence_of(answer.get("evidence")),
        confidence=confidence_of(answer.get("confidence")),
        choice=choice,
    )


def summarise(
    item: JudgeItem,
    dim: Dimension,
    model: str,
    outcomes: Sequence[Outcome[Judgement]],
    prompt_hash: str,
    examples_used: Sequence[str] = (),
    share: int = 1,
) -> ScoreResult:
    """Every sample into one result: mean and standard deviation, or the first error.

    A single failed sample fails the dimension (with the good samples kept): a mean over the
    samples that happened to parse would be a guess. ``share`` splits cost among the dimensions
    of a combined call.
    """
    common: dict[str, Any] = {
        "model": model,
        "prompt_hash": prompt_hash,
        "cost_usd": sum(o.cost_usd for o in outcomes) / share,
        "tokens_in": sum(o.tokens_in for o in outcomes) // share,
        "tokens_out": sum(o.tokens_out for o in outcomes) // share,
        "cached": all(o.cached for o in outcomes),
        "examples_used": list(examples_used),
    }
    good = [o.value for o in outcomes if o.value is not None]
    bad = [o for o in outcomes if o.value is None]
    if bad:
        n = len(outcomes)
        error = bad[0].error or "no answer"
        prefix = f"{len(bad)} of {n} samples failed: " if n > 1 else ""
        return failed(item, dim, prefix + error, raw_reply=bad[0].raw,
                      samples=[j.score for j in good], **common)
    values = [j.score for j in good]
    mean = statistics.fmean(values)
    lead = good[0]
    evidence: list[Any] = list(lead.evidence)
    if lead.choice is not None:
        evidence = [{"choice": j.choice} for j in good] + evidence
    confidences = [j.confidence for j in good if j.confidence is not None]
    stated = [j.stated_overall for j in good if j.stated_overall is not None]
    return scored(
        item, dim, mean, samples=values,
        std=statistics.stdev(values) if len(values) > 1 else None,
        rationale=lead.rationale, evidence=evidence,
        confidence=statistics.fmean(confidences) if confidences else None,
        stated_overall=statistics.fmean(stated) if len(stated) == len(good) else None,
        **common,
    )


async def score_llm_judge(
    item: JudgeItem,
    dim: Dimension,
    client: JudgeClient,
    examples: Sequence[Mapping[str, Any]] = (),
    samples: int | None = None,
    reply: str = "structured",
) -> ScoreResult:
    """Score one dimension: ``samples`` calls (each with fresh sandbox markers), summarised.

    ``reply="last_line"`` (FlexEval's shape, choice dimensions): the reply's last line must be
    one of the choices; anything else is an error after one re-ask, never a guess."""
    n = max(1, samples or dim.samples)
    last_line = reply == "last_line" and bool(dim.choices)
    prompts = [build_dimension_prompt(item, dim, examples, reply="last_line" if last_line else "structured")
               for _ in range(n)]
    parse: Callable[[str], dict[str, Any]] = (
        last_line_choice(dim.choices) if last_line and dim.choices else extract_json)
    reask = REASK_LAST_LINE if last_line else REASK

    def validate(answer: dict[str, Any]) -> Judgement:
        return parse_judgement(answer, dim)

    outcomes = await _all([client.judge(p, validate, sample=i, parse=parse, reask=reask)
                           for i, p in enumerate(prompts)])
    return summarise(item, dim, client.model, outcomes, prompts[0].prompt_hash,
                     prompts[0].examples_used)


async def _all(calls: list[Coroutine[Any, Any, T]]) -> list[T]:
    """The samples' outcomes in order: several at once, a lone one awaited where it is (a task and
    a gather per judge call cost the event loop time that bare litellm does not spend)."""
    if len(calls) == 1:
        return [await calls[0]]
    return list(await asyncio.gather(*calls))


def _combined_validator(dims: Sequence[Dimension]) -> Callable[[dict[str, Any]], dict[str, Judgement]]:
    def validate(answer: dict[str, Any]) -> dict[str, Judgement]:
        out: dict[str, Judgement] = {}
        for dim in dims:
            part = answer.get(dim.id)
            if not isinstance(part, Mapping):
                raise ReplyError(f'dimension "{dim.id}" is missing from the answer')
            try:
                out[dim.id] = parse_judgement(part, dim)
            except ReplyError as exc:
                raise ReplyError(f'dimension "{dim.id}": {exc}') from None
        return out

    return validate


def _flat_validator(dims: Sequence[Dimension]) -> Callable[[dict[str, Any]], dict[str, Judgement]]:
    """The flat reply (``judge.reply: flat``), strictly: exactly the dimension ids (each a number on its scale)
    and ``notes`` (text), and optionally ``overall`` — the judge's own figure, a number within the
    dimensions' scales, kept apart as :attr:`Judgement.stated_overall` (never the overall rubricate
    computes). A missing, extra or misspelt key is an error, not a guess."""
    wanted = [d.id for d in dims]
    scales = [effective_scale(d) for d in dims]
    span = Scale(min(s.min for s in scales), max(s.max for s in scales))

    def validate(answer: dict[str, Any]) -> dict[str, Judgement]:
        missing = [k for k in [*wanted, "notes"] if k not in answer]
        extra = sorted(k for k in answer if k not in wanted and k not in ("notes", "overall"))
        if missing or extra:
            parts = ([f"missing {', '.join(missing)}"] if missing else []) + (
                [f"unexpected {', '.join(extra)}"] if extra else [])
            raise ReplyError(f"the answer must hold exactly {', '.join(wanted)} and notes, and may hold "
                             f"overall ({'; '.join(parts)})")
        notes = answer["notes"]
        if not isinstance(notes, str):
            raise ReplyError("notes must be text")
        stated = number_on_scale(answer["overall"], span, '"overall"') if "overall" in answer else None
        out: dict[str, Judgement] = {}
        for dim in dims:
            out[dim.id] = Judgement(score=number_on_scale(answer[dim.id], effective_scale(dim), f'"{dim.id}"'),
                                    rationale=notes, stated_overall=stated)
        return out

    return validate


async def score_combined(
    item: JudgeItem, dims: Sequence[Dimension], client: JudgeClient, samples: int | None = None,
    reply: str = "structured",
) -> list[ScoreResult]:
    """Score several dimensions with one call per sample; each dimension gets its own result
    (``reply="flat"``: one flat object of numbers keyed by dimension, with notes)."""
    n = max(1, samples or max(d.samples for d in dims))
    prompts = [build_combined_prompt(item, dims, reply=reply) for _ in range(n)]
    validate = _flat_validator(dims) if reply == "flat" else _combined_validator(dims)
    outcomes = await _all([client.judge(p, validate, sample=i) for i, p in enumerate(prompts)])
    results = []
    for dim in dims:
        per_dim: list[Outcome[Judgement]] = []
        for o in outcomes:
            value = o.value[dim.id] if o.value is not None else None
            per_dim.append(Outcome(value, o.error, o.raw, o.cost_usd, o.tokens_in, o.tokens_out, o.cached))
        results.append(summarise(item, dim, client.model, per_dim, prompts[0].prompt_hash,
                                 share=len(dims)))
    return results
