"""What a run will do before it does it: the order dimensions are scored in, which ones share a
combined call, and the ``--dry-run`` estimate of calls, tokens and cost."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rubrics.judge.client import import_litellm
from rubrics.judge.limits import message_tokens
from rubrics.judge.prompt import BuiltPrompt, build_dimension_prompt, examples_for
from rubrics.methods.base import JudgeItem, turn_views
from rubrics.schema import Dimension, Rubric

#: Output tokens assumed per judge call in estimates (a JSON answer with a short rationale).
TOKENS_OUT_PER_CALL = 150


def scoring_order(dims: Sequence[Dimension]) -> list[list[Dimension]]:
    """Dimensions in waves: each wave depends only on earlier waves (``depends_on``)."""
    remaining = list(dims)
    done: set[str] = set()
    waves: list[list[Dimension]] = []
    while remaining:
        wave = [d for d in remaining if d.depends_on is None or d.depends_on.dimension in done
                or d.depends_on.dimension not in {x.id for x in dims}]
        if not wave:  # a cycle the loader should have refused: score the rest unconditionally
            wave = remaining
        waves.append(wave)
        done |= {d.id for d in wave}
        remaining = [d for d in remaining if d.id not in done]
    return waves


def combinable(rubric: Rubric, dim: Dimension, has_turns: bool) -> bool:
    """Whether ``dim`` joins the item's combined call (``judge.mode: combined``: one call for them all)."""
    return (rubric.judge.mode == "combined" and dim.method == "llm_judge" and dim.depends_on is None
            and not dim.tool_calls and not (dim.in_parts and has_turns)
            and rubric.judge.correction_examples == 0)


def item_dimensions(rubric: Rubric) -> list[Dimension]:
    """Dimensions scored item by item (not pair methods, not human-only)."""
    return [d for d in rubric.dimensions if not d.is_pair and d.method != "human"]


def estimate_tokens(prompt: BuiltPrompt) -> int:
    """A rough input-token count for ``--dry-run`` (about four characters a token)."""
    return message_tokens(prompt.messages)


def estimate_cost(model: str, tokens_in: int, tokens_out: int) -> float | None:
    """litellm's price for these tokens, or None when the model's price is unknown."""
    try:
        cin, cout = import_litellm().cost_per_token(
            model=model, prompt_tokens=tokens_in, completion_tokens=tokens_out
        )
        return float(cin) + float(cout)
    except Exception:
        return None


@dataclass
class DryRun:
    """Calls, tokens and cost a run would spend."""

    items: int = 0
    calls: dict[str, int] = field(default_factory=dict)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0

    @property
    def total_calls(self) -> int:
        """Judge calls over every dimension."""
        return sum(self.calls.values())

    def as_dict(self) -> dict[str, Any]:
        """Plain form for printing and JSON."""
        return {"items": self.items, "calls": dict(self.calls), "total_calls": self.total_calls,
                "tokens_in": self.tokens_in, "tokens_out": self.tokens_out, "cost_usd": self.cost_usd}


def dry_run(rubric: Rubric, items: Iterable[JudgeItem], model: str | None,
            samples: int | None = None, examples: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> DryRun:
    """Count the judge calls a run would make and estimate their tokens and cost (no call made).

    Input tokens come from the real prompts (about four characters a token); output tokens are
    assumed at :data:`TOKENS_OUT_PER_CALL`. Cost is None when litellm does not know the price.
    """
    plan = DryRun()
    groups: set[str] = set()
    for item in items:
        plan.items += 1
        if item.group:
            groups.add(item.group)
        has_turns = bool(item.assistant_turns())
        combined = [d for d in item_dimensions(rubric) if combinable(rubric, d, has_turns)]
        for dim in item_dimensions(rubric):
            n = max(1, samples or dim.samples)
            views = turn_views(item, dim)
            if dim in combined:
                calls = n if dim is combined[0] else 0
            elif dim.method == "llm_judge":
                calls = n * len(views)
            elif dim.method in ("claim_pipeline", "groundedness") and dim.params.get("checker") != "embedding":
                calls = 2 * len(views)
            else:
                continue
            plan.calls[dim.id] = plan.calls.get(dim.id, 0) + calls
            if calls:
                ex = examples_for((examples or {}).get(dim.id, ()), item.key, rubric.judge.correction_examples)
                plan.tokens_in += calls * estimate_tokens(build_dimension_prompt(views[0], dim, ex,
                                                                                 reply=rubric.judge.reply))
                plan.tokens_out += calls * TOKENS_OUT_PER_CALL
    for dim in rubric.dimensions:
        if dim.method == "argumentation_parity":
            plan.calls[dim.id] = len(groups)
            plan.tokens_in += len(groups) * 600
            plan.tokens_out += len(groups) * TOKENS_OUT_PER_CALL
    plan.cost_usd = estimate_cost(model, plan.tokens_in, plan.tokens_out) if model else 0.0
    return plan
