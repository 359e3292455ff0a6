"""What scoring produces: plain records the judge pipeline emits and the store persists.

Every number a reviewer sees must be traceable, so a score carries its samples, the raw reply,
the prompt's hash and the cost; a reply that could not be parsed is a score with ``error`` set
and ``score`` None — never a guessed number.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ScoreResult:
    """One dimension of one item, as one judge (or method) scored it."""

    item_id: str
    dimension: str
    method: str
    #: The judge model (None for methods that call no model).
    model: str | None = None
    #: Raw score on the dimension's scale (mean of samples); None when it failed or did not apply.
    score: float | None = None
    #: The same score on [0, 1].
    normalised: float | None = None
    #: Every sample drawn (one entry when samples == 1).
    samples: list[float] = field(default_factory=list)
    #: Standard deviation of the samples (None with fewer than two).
    std: float | None = None
    rationale: str = ""
    #: Quotes from the output, claims with verdicts, rule results: whatever supports the score.
    evidence: list[Any] = field(default_factory=list)
    #: The judge's own stated confidence in [0, 1], when it gave one.
    confidence: float | None = None
    #: Why no score could be recorded (unparseable reply, off the scale, HTTP error...).
    error: str | None = None
    #: The model's raw reply text (always kept for judge errors).
    raw_reply: str | None = None
    prompt_hash: str | None = None
    cost_usd: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    #: Assistant turn index for turn-level dimensions; None for item level.
    turn: int | None = None
    #: True when a ``depends_on`` condition did not hold.
    not_applicable: bool = False
    #: Ids of human-corrected examples put into the prompt (learning from corrections).
    examples_used: list[str] = field(default_factory=list)
    #: True when the reply came from the judge cache (no network call).
    cached: bool = False
    #: The store's key of the item (``JudgeItem.key``): ids repeat across datasets, keys do not.
    item_key: int | None = None
    #: The overall the judge stated in its reply (the flat reply's ``overall``; the mean over samples): the
    #: judge's own figure, shown beside the overall rubricate computes, never in its place.
    stated_overall: float | None = None

    @property
    def ok(self) -> bool:
        """Whether a usable score was recorded."""
        return self.error is None and self.score is not None and not self.not_applicable


@dataclass
class SafetyHit:
    """A safety gate that fired on an item's output, with the span that made it fire."""

    item_id: str
    gate: str
    detector: str
    start: int
    end: int
    matched: str
    #: A few words either side, for the safety reviewer.
    context: str = ""
    severity: str = "high"
    #: The store's key of the item (``JudgeItem.key``), when it has one.
    item_key: int | None = None
