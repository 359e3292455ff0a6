"""The Scoring Rubrics wiki's ten reference dimensions, with their default method, weight and
threshold, for ``rubricate rubric dimensions`` and for ``use:`` in a rubric file.

A rubric dimension that says ``use: accuracy`` inherits the reference dimension's name,
description, method, weight, threshold, prompt and anchors; any key the dimension states itself
overrides the inherited one. Safety is in the list for completeness but is a gate, not a
weighted dimension, so it cannot be ``use``d (name the gates in ``safety_gates``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubrics.schema import Scale


@dataclass(frozen=True)
class Reference:
    """One reference dimension."""

    id: str
    name: str
    description: str
    catches: str
    method: str
    weight: float
    threshold: float
    #: Labels from the best level down to the worst (anchors are spread over any scale).
    labels: tuple[str, ...]
    prompt: str | None = None
    #: The wiki's remark on when the dimension applies or how its method is used.
    note: str = ""


REFERENCE: tuple[Reference, ...] = (
    Reference("accuracy", "Accuracy", "The output's factual claims are correct in the world.",
              "wrong facts, wrong arithmetic, wrong names", "llm_judge", 0.15, 70,
              ("Completely accurate", "Mostly accurate", "Mixed accuracy", "Significant errors",
               "Mostly incorrect"),
              "Are the output's factual claims correct? Name any wrong fact, figure or name.",
              "an optional ground truth goes in the item's reference"),
    Reference("relevance", "Relevance", "The output addresses the input rather than drifting off topic.",
              "off-topic answers, generic boilerplate", "llm_judge", 0.10, 70,
              ("Directly on point", "Mostly relevant", "Partly relevant", "Largely off topic",
               "Irrelevant"),
              "Does the output address what the input asked, without generic boilerplate?"),
    Reference("completeness", "Completeness", "The output covers every requirement of the expected behaviour.",
              "missing required steps, partial answers", "llm_judge", 0.10, 70,
              ("Covers everything", "Minor omission", "Some requirements missing", "Mostly incomplete",
               "Barely started"),
              "List the requirements the input sets, then check each one: is every one covered?",
              "the judge works through a requirement checklist"),
    Reference("task_completion", "Task completion",
              "The output achieves the user's goal, not just the surface question.",
              "plausible but useless outputs", "llm_judge", 0.10, 70,
              ("Goal achieved", "Nearly achieved", "Partly achieved", "Plausible but unhelpful",
               "Goal not addressed"),
              "Would the user's underlying goal be achieved with this output, not just the literal question?"),
    Reference("hallucination_risk", "Hallucination risk",
              "How likely the output contains invented or unsupported claims (high score = low risk).",
              "confidently stated fictions", "claim_pipeline", 0.15, 80,
              ("All claims supported", "Nearly all supported", "Some unsupported claims",
               "Many invented claims", "Mostly invented")),
    Reference("groundedness", "Groundedness", "Every claim is anchored in the retrieved context (RAG).",
              "stitched facts, ghost numbers, citation drift", "groundedness", 0.10, 75,
              ("Fully grounded", "Nearly all grounded", "Partly grounded", "Mostly ungrounded",
               "Not grounded"),
              note="only when context is supplied: without context it is not applicable"),
    Reference("safety", "Safety",
              "The output is free of PII leakage, harmful instruction following and false confirmation.",
              "high-severity policy violations", "gate", 0.0, 0, (),
              note="a gate, not a weight: list the gates under safety_gates"),
    Reference("consistency", "Consistency",
              "The output does not contradict itself or earlier outputs in the same conversation.",
              "inner contradictions, multi-turn drift", "llm_judge", 0.05, 70,
              ("Fully consistent", "Minor tension", "One contradiction", "Several contradictions",
               "Contradicts itself throughout"),
              "Does the output contradict itself, or anything said earlier in the conversation?"),
    Reference("tone_fit", "Tone fit", "The output matches the project's voice and its audience's expectations.",
              "wrong register, toxic positivity, off-brand voice", "llm_judge", 0.05, 60,
              ("On voice", "Mostly on voice", "Uneven register", "Off voice", "Wrong register throughout"),
              "Does the tone fit the project's voice and the audience?"),
    Reference("actionability", "Actionability",
              "The output gives the user something specific to act on when action is the goal.",
              "vague answers when specific ones were needed", "llm_judge", 0.05, 65,
              ("Clear next step", "Usable next step", "Vague next step", "Barely actionable",
               "Nothing to act on"),
              "When action is the goal, does the output give the user a specific next step?"),
)

BY_ID: Mapping[str, Reference] = {r.id: r for r in REFERENCE}


def anchors_for(labels: tuple[str, ...], scale: Scale) -> list[dict[str, Any]]:
    """Anchors over ``scale``'s levels: contiguous groups from the top, one label each."""
    levels = sorted(scale.level_values(), reverse=True)
    n = min(len(labels), len(levels))
    picks = [labels[round(i * (len(labels) - 1) / (n - 1))] for i in range(n)] if n > 1 else [labels[0]]
    out: list[dict[str, Any]] = []
    start = 0
    for i in range(n):
        size = len(levels) // n + (1 if i < len(levels) % n else 0)
        group = levels[start:start + size]
        start += size
        lo, hi = min(group), max(group)
        out.append({"score": lo, "label": picks[i]} if lo == hi else {"range": [lo, hi], "label": picks[i]})
    return out


def inherited(ref_id: str, scale: Scale) -> dict[str, Any]:
    """The keys a ``use: REF`` dimension inherits (as rubric-file data); KeyError if unknown,
    ValueError for safety (a gate)."""
    ref = BY_ID[ref_id]
    if ref.method == "gate":
        raise ValueError(ref.note)
    data: dict[str, Any] = {"id": ref.id, "name": ref.name, "description": ref.description,
                            "method": ref.method, "weight": ref.weight, "threshold": ref.threshold,
                            "anchors": anchors_for(ref.labels, scale)}
    if ref.prompt and ref.method == "llm_judge":
        data["prompt"] = ref.prompt
    return data
