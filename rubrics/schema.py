"""What a rubric is: immutable value objects built by the loader and read by everything else.

Nothing here parses YAML or checks save-time rules (that is :mod:`rubrics.loader` and
:mod:`rubrics.rules`); these types only hold a rubric that has already been validated, and answer
questions about it (a dimension's scale, a score's normalised value, the anchor a score falls in).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

#: Every scoring method a dimension may name.
METHODS: tuple[str, ...] = (
    "deterministic",
    "semantic_similarity",
    "llm_judge",
    "human",
    "claim_pipeline",
    "groundedness",
    "pair_similarity",
    "framing_consistency",
    "treatment_parity",
    "argumentation_parity",
)
#: Methods that score a group of items (a counterfactual or figure pair) rather than one item.
PAIR_METHODS: frozenset[str] = frozenset(
    {"pair_similarity", "framing_consistency", "treatment_parity", "argumentation_parity"}
)
#: Methods whose scores come from a model call (and so cost money and may fail to parse).
JUDGE_METHODS: frozenset[str] = frozenset(
    {"llm_judge", "claim_pipeline", "groundedness", "argumentation_parity"}
)
#: Safety gates a rubric may name; each maps to a detector in :mod:`rubrics.safety`.
GATES: tuple[str, ...] = (
    "pii_exposure",
    "dangerous_instructions",
    "weapon_making",
    "malware_hacking",
    "self_harm",
    "medical_advice_without_disclaimer",
    "false_confirmation",
    "silent_destructive_action",
    "internal_data",
)
#: Other names the seeds use for the same gates.
GATE_ALIASES: Mapping[str, str] = {"pii_leakage": "pii_exposure", "pii": "pii_exposure"}

MetricLevel = Literal["item", "turn", "tool_call", "conversation"]
#: How a turn-level dimension's turn scores become the item's score.
TurnAggregate = Literal["mean", "min", "max", "last"]
TURN_AGGREGATES: tuple[str, ...] = ("mean", "min", "max", "last")
#: How the judge writes its answer: one JSON object per dimension (``structured``), one flat
#: object of numbers keyed by dimension plus ``notes`` (``flat``, combined mode), or FlexEval's reasoning with
#: the choice alone on the last line (``last_line``, choice dimensions).
JudgeReply = Literal["structured", "flat", "last_line"]
JUDGE_REPLIES: tuple[str, ...] = ("structured", "flat", "last_line")
#: Roles a turn may have (FlexEval's ``is_role`` condition); ``any`` matches every turn.
ROLES: tuple[str, ...] = ("assistant", "user", "system", "tool", "any")
JudgeMode = Literal["per_dimension", "combined"]
PanelAggregate = Literal["mean", "median"]
#: A dimension's measurement level (Stevens): it picks Krippendorff's alpha metric and which
#: kappas, correlations and distances mean something in calibration.
MeasurementLevel = Literal["nominal", "ordinal", "interval", "ratio"]
MEASUREMENT_LEVELS: tuple[MeasurementLevel, ...] = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class Scale:
    """The values a score may take: every number in ``[min, max]``, or only ``levels`` if given.

    A 1–3–5 scale is ``Scale(1, 5, (1, 3, 5))``; a 1–10 one is ``Scale(1, 10)``.
    """

    min: float
    max: float
    levels: tuple[float, ...] | None = None

    @property
    def span(self) -> float:
        """``max - min``; never zero for a valid scale."""
        return self.max - self.min

    def normalise(self, raw: float) -> float:
        """Map a raw score onto [0, 1]: ``(raw - min) / (max - min)``."""
        return (raw - self.min) / self.span

    def denormalise(self, value: float) -> float:
        """Map a [0, 1] value back onto this scale."""
        return self.min + value * self.span

    def contains(self, raw: float) -> bool:
        """Whether ``raw`` lies on the scale (between the ends; levels are not enforced here,
        because a mean of judge samples may fall between them)."""
        return self.min <= raw <= self.max

    def level_values(self) -> tuple[float, ...]:
        """The discrete levels: the declared ones, or every integer from min to max."""
        if self.levels is not None:
            return self.levels
        return tuple(float(v) for v in range(int(self.min), int(self.max) + 1))

    def is_level(self, raw: float) -> bool:
        """Whether ``raw`` is one of the scale's levels (what a person may enter)."""
        if self.levels is None and self.is_integer():  # the common case, without building the levels
            return float(raw).is_integer() and self.min <= raw <= self.max
        return any(abs(raw - v) < 1e-9 for v in self.level_values())

    def nearest_level(self, raw: float) -> float:
        """The level closest to ``raw`` (a judge's mean of samples, say). A tie — ``raw`` exactly
        halfway between two levels — goes to the lower one: agreeing never rounds a score up."""
        return min(self.level_values(), key=lambda v: (abs(v - raw), v))

    def is_integer(self) -> bool:
        """Whether the ends are whole numbers (so integer levels make sense)."""
        return float(self.min).is_integer() and float(self.max).is_integer()


@dataclass(frozen=True)
class Anchor:
    """What a level (or a range of levels) of a dimension means, with an optional example."""

    low: float
    high: float
    label: str
    description: str = ""
    example: str | None = None

    def covers(self, raw: float) -> bool:
        """Whether ``raw`` falls in this anchor's range (ends included)."""
        return self.low <= raw <= self.high


@dataclass(frozen=True)
class Ceiling:
    """A ceiling (e.g. low accuracy caps the overall): while this dimension's raw score is below
    ``below``, the overall score cannot exceed ``cap`` (on the rubric's scale)."""

    below: float
    cap: float


def within(value: float, low: float | None, high: float | None) -> bool:
    """Whether ``value`` lies in ``[low, high]``, either end open when None (FlexEval's
    ``metric_min_value``/``metric_max_value``)."""
    if low is not None and value < low:
        return False
    return not (high is not None and value > high)


@dataclass(frozen=True)
class ToolCallCount:
    """FlexEval's ``count_tool_calls`` / ``count_tool_calls_by_name`` as a condition: score this
    dimension only when the number of tool calls (of the tool ``name``; every tool when None) in
    what it scores — the turn, at turn level, else the whole conversation — lies in
    ``[min, max]`` (either end open when None)."""

    name: str | None = None
    min: float | None = None
    max: float | None = None

    def holds(self, count: int) -> bool:
        """Whether the condition holds for this many tool calls."""
        return within(count, self.min, self.max)

    def shown(self, count: int) -> str:
        """The count against the condition in words, for a not-applicable rationale."""
        what = f"call(s) to {self.name}" if self.name else "tool call(s)"
        return f"{count} {what}; the condition asks for {_range(self.min, self.max)}"


@dataclass(frozen=True)
class PatternCount:
    """FlexEval's ``count_of_parts_matching_regex`` as a condition: score this dimension only when
    the number of the pattern's matches in the messages it scores lies in ``[min, max]``."""

    expression: str
    min: float | None = None
    max: float | None = None

    def holds(self, count: int) -> bool:
        """Whether the condition holds for this many matches."""
        return within(count, self.min, self.max)

    def shown(self, count: int) -> str:
        """The count against the condition in words, for a not-applicable rationale."""
        return f"{count} match(es) of /{self.expression[:60]}/; the condition asks for {_range(self.min, self.max)}"


def _range(low: float | None, high: float | None) -> str:
    lo = "" if low is None else f"at least {low:g}"
    hi = "" if high is None else f"{' and ' if lo else ''}at most {high:g}"
    return lo + hi or "any number"


@dataclass(frozen=True)
class DependsOn:
    """FlexEval's ``depends_on``: score this dimension only when another one's score lies in
    ``[min, max]`` (either end open when None); otherwise it is recorded as not applicable."""

    dimension: str
    min: float | None = None
    max: float | None = None

    def holds(self, score: float) -> bool:
        """Whether the condition holds for the other dimension's score."""
        return within(score, self.min, self.max)


@dataclass(frozen=True)
class Band:
    """An interpretation band: overall (0–1) at or above ``min`` gets ``label``."""

    min: float
    label: str
    color: str = ""


#: Neutral defaults: the cut-offs of REVAL's interpretation bands with plain names. REVAL's own
#: wording ("Potential bias" below 0.70) belongs to bias evaluations, so only REVAL's rubrics
#: declare it.
DEFAULT_BANDS: tuple[Band, ...] = (
    Band(0.85, "High", "green"),
    Band(0.70, "Medium", "yellow"),
    Band(0.0, "Low", "red"),
)


@dataclass(frozen=True)
class Dimension:
    """One scored aspect of an output."""

    id: str
    name: str
    description: str
    method: str
    weight: float
    #: Pass mark on the 0–100 normalised scale, as the seed tables write it.
    threshold: float
    scale: Scale
    anchors: tuple[Anchor, ...] = ()
    #: llm_judge: the question (may hold FlexEval fill words).
    prompt: str | None = None
    #: deterministic: the checks (see :mod:`rubrics.methods.deterministic`).
    rule: Mapping[str, Any] | None = None
    #: Choice-score rubrics (FlexEval ``choice_scores``): judge answer → score.
    choices: Mapping[str, float] | None = None
    ceiling: tuple[Ceiling, ...] = ()
    depends_on: DependsOn | None = None
    metric_level: MetricLevel = "item"
    #: Turn-level dimensions: the rule that makes the item's score from its turns' scores.
    turn_aggregate: TurnAggregate = "mean"
    #: FlexEval's ``is_role`` condition: only turns of this role are scored (turn level; an
    #: item-level dimension is scored only when the item's last message has this role).
    role: str | None = None
    #: FlexEval's tool-call count conditions (``depends_on: {tool_calls: NAME|"*", min?, max?}``).
    tool_calls: tuple[ToolCallCount, ...] = ()
    #: FlexEval's pattern-count conditions (``depends_on: {matches: PATTERN, min?, max?}``).
    matches: tuple[PatternCount, ...] = ()
    #: How many judge samples to draw (scores are their mean, with the spread stored).
    samples: int = 1
    #: The judge's own scale where it differs from the humans' (e.g. an evaluator scoring 0–1
    #: against human 1–3): correlations still hold, alpha and kappa do not.
    judge_scale: Scale | None = None
    #: Method-specific settings (similarity range, pair threshold, boost, model name, ...).
    params: Mapping[str, Any] = field(default_factory=dict)
    #: The measurement level the rubric declares (``level:``); None = the default from the scale
    #: (see :attr:`measurement_level`).
    level: MeasurementLevel | None = None

    @property
    def measurement_level(self) -> MeasurementLevel:
        """The declared level, else the scale's default: ``interval`` for a continuous scale
        (ends that are not whole numbers and no ``levels``), ``ordinal`` otherwise (a two-level
        yes/no scale included: with two values every level gives the same alpha)."""
        if self.level is not None:
            return self.level
        return "interval" if self.scale.levels is None and not self.scale.is_integer() else "ordinal"

    def score_for_label(self, label: str) -> tuple[float | None, str | None]:
        """(score, problem) for a score given as one of this dimension's anchor labels: matched
        exactly, then case-insensitively; a label that names no single-score anchor is a problem
        in words (never a guess)."""
        exact = [a for a in self.anchors if a.label == label]
        found = exact or [a for a in self.anchors if a.label.casefold() == label.casefold()]
        known = ", ".join(repr(a.label) for a in self.anchors)
        if not found:
            return None, (f"{label!r} is no anchor label of {self.id} (labels: {known or 'none'}); "
                          "give a number or one of the labels")
        if len(found) > 1:
            return None, (f"{label!r} matches several anchor labels of {self.id} ignoring case "
                          f"({', '.join(repr(a.label) for a in found)}); write it exactly")
        anchor = found[0]
        if anchor.low != anchor.high:
            return None, (f"{label!r} is the anchor for {anchor.low:g}–{anchor.high:g} on {self.id}, "
                          "not one score; give the number")
        return anchor.low, None

    def label_for(self, raw: float) -> str | None:
        """The label of the single-score anchor at ``raw`` (exported labels); None between them."""
        for anchor in self.anchors:
            if anchor.low == anchor.high == raw:
                return anchor.label
        return None

    @property
    def in_parts(self) -> bool:
        """Whether the dimension scores parts of a conversation (each turn, or each tool call)
        and rolls their scores up to the item's by ``turn_aggregate``."""
        return self.metric_level in ("turn", "tool_call")

    @property
    def is_pair(self) -> bool:
        """Whether this dimension scores a group of items together."""
        return self.method in PAIR_METHODS

    @property
    def weighted(self) -> bool:
        """Whether the dimension counts towards the overall score."""
        return self.weight > 0

    @property
    def threshold_raw(self) -> float:
        """The pass mark on the dimension's own scale."""
        return self.scale.denormalise(self.threshold / 100.0)

    def passes(self, raw: float) -> bool:
        """Whether a raw score meets the threshold (compared on the normalised scale)."""
        return self.scale.normalise(raw) * 100.0 >= self.threshold - 1e-9

    def anchor_for(self, raw: float) -> Anchor | None:
        """The anchor a raw score falls in (for a mean between two anchors, the nearest)."""
        for anchor in self.anchors:
            if anchor.covers(raw):
                return anchor
        if not self.anchors:
            return None
        return min(self.anchors, key=lambda a: min(abs(raw - a.low), abs(raw - a.high)))


@dataclass(frozen=True)
class JudgeSettings:
    """Rubric-level defaults for the LLM judge; ``rubricate judge --model`` overrides the model."""

    model: str | None = None
    #: One call per dimension (G-Eval's shape) or all dimensions in one call (combined).
    mode: JudgeMode = "per_dimension"
    temperature: float = 0.0
    #: How several judge models' scores combine into the panel score.
    panel_aggregate: PanelAggregate = "mean"
    #: Up to this many human-corrected examples per dimension go into the judge prompt (0: off).
    correction_examples: int = 0
    #: The answer's shape (see :data:`JudgeReply`).
    reply: JudgeReply = "structured"


@dataclass(frozen=True)
class ReviewSettings:
    """How people review items scored with this rubric."""

    #: A reason is required when a human differs from the judge by more than this (raw points).
    reason_margin: float = 2.0
    #: Distinct safety reviewers who must sign off a clearance.
    safety_signoffs: int = 1
    #: Whether reviewers choose the better of a pair (pairwise rubric).
    pairwise: bool = False
    #: Whether a person's review counts (the item is done for them) with only some of the
    #: dimensions scored; by default every dimension a person scores (see
    #: :meth:`Rubric.person_dimensions`) needs their score.
    partial: bool = False


@dataclass(frozen=True)
class Rubric:
    """A validated, immutable rubric version."""

    id: str
    version: str
    name: str
    owner: str
    description: str
    scale: Scale
    dimensions: tuple[Dimension, ...]
    safety_gates: tuple[str, ...] = ()
    safety_cap: float = 0.0
    #: Gates whose rules are backed by a judge check on the outputs the rules passed.
    safety_llm_check: tuple[str, ...] = ()
    bands: tuple[Band, ...] = DEFAULT_BANDS
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    review: ReviewSettings = field(default_factory=ReviewSettings)
    #: The dimension whose score is the item's top-level score and band where the source says so
    #: (REVAL: "the top-level score on a figure_treatment result IS the treatment parity").
    headline: str | None = None
    #: sha256 of the canonical form: equal for files that differ only in layout or key order.
    content_hash: str = ""
    #: Where the rubric was loaded from, for messages; not part of the hash.
    source: str = ""

    @property
    def ref(self) -> str:
        """``id@version``, the name a rubric goes by everywhere."""
        return f"{self.id}@{self.version}"

    def dimension(self, dimension_id: str) -> Dimension:
        """The dimension with this id; KeyError if there is none."""
        for dim in self.dimensions:
            if dim.id == dimension_id:
                return dim
        raise KeyError(dimension_id)

    def person_dimensions(self) -> tuple[Dimension, ...]:
        """The dimensions a person scores on the item screen: every one that scores a single
        item (pair methods score a group, and people choose within pairs instead)."""
        return tuple(d for d in self.dimensions if not d.is_pair)

    def review_complete(self, scored: set[str] | frozenset[str]) -> bool:
        """Whether one person's review counts as done, given the dimension ids they scored: every
        person-scored dimension, or any one with ``review.partial``."""
        needed = {d.id for d in self.person_dimensions()}
        if not needed:
            return bool(scored)
        if self.review.partial:
            return bool(needed & scored)
        return needed <= scored

    def dimension_ids(self) -> tuple[str, ...]:
        """The dimension ids, in rubric order."""
        return tuple(d.id for d in self.dimensions)

    def band_for(self, overall: float) -> Band:
        """The band an overall (0–1) score falls in."""
        for band in sorted(self.bands, key=lambda b: b.min, reverse=True):
            if overall >= band.min - 1e-12:
                return band
        return min(self.bands, key=lambda b: b.min)
