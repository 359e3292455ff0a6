"""The shapes of the services' reports: each is the ``--format json`` object itself (docs/formats.md),
so a report is a ``TypedDict`` — a plain dict at run time, written out as it is built, key for
key — and mypy checks every key a reader (the CLI, the TUI, the renderers) takes from it.

Keys documented as present only sometimes (a panel's ``per_model``, ``--target-width``'s
``more_labels_needed``, …) are ``NotRequired``.
"""


from typing import Generic, NotRequired, TypedDict, TypeVar

#: A JSON value: what a figure the report only carries through (never reads) may hold.
Json = str | int | float | bool | None | list["Json"] | dict[str, "Json"]


# functional form: ``lambda`` is a Python keyword
_MeanKeys = TypedDict("_MeanKeys", {
    "judge_only": float | None, "humans_only": float | None, "humans_ci": list[float] | None,
    "ppi": float | None, "ppi_ci": list[float] | None, "n_labelled": int, "n_unlabelled": int,
    "effective_labels": float | None, "lambda": float | None,
})


class RankedEstimate(_MeanKeys):
    """One group of a corrected ranking: its rank, the judge's, and its corrected mean."""

    group: str
    rank: int
    judge_rank: int
    rank_probability: float
    warning: str | None


_EstimateKeys = TypedDict("_EstimateKeys", {
    "judge_only": float | None, "humans_only": float | None, "humans_ci": list[float] | None,
    "ppi": float | None, "ppi_ci": list[float] | None, "n_labelled": int, "n_unlabelled": int,
    "effective_labels": float | None, "lambda": float | None, "reason": str | None,
    "confidence": float, "target_width": float, "more_labels_needed": int | None,
    "ranking": list[RankedEstimate],
}, total=False)


class Estimate(_EstimateKeys, total=False):
    """A corrected mean or share (``estimate``, ``pass_rate_estimate``; docs/formats.md,
    "Corrected estimates"). Every key may be absent: a nominal dimension's estimate is only
    ``ppi`` (null) and ``reason``; ``target_width`` and ``more_labels_needed`` come with
    ``--target-width``, ``ranking`` with ``--group-by``."""


class ReviewerFigures(TypedDict):
    """One reviewer against the others (``reviewers`` of a dimension)."""

    reviewer: str
    n: int
    bias: float | None
    mae: float | None
    alpha_with_others: float | None


class Adjudicated(TypedDict):
    """The judge and the reviewers against a lead's settled scores."""

    n: int
    judge_exact: float | None
    judge_mae: float | None
    human_mae: float | None
    judge_vs_humans_mae: NotRequired[float]


class Anchoring(TypedDict):
    """Blind scores revised after the judge was revealed."""

    n: int
    moved_toward: float | None
    moved_away: float | None
    gap_closed: float | None


class JudgeSpread(TypedDict):
    """The judge's own sample spread and the spread between its models."""

    sample_std: float | None
    n_sampled: int
    model_std: float | None
    n_multi_model: int


class SideFigures(TypedDict):
    """Agreement on one side of ``corrections`` (without or with people's corrections)."""

    n: int
    alpha: float | None
    alpha_ci: list[float] | None
    mae: float | None
    exact: float | None


class Corrections(TypedDict):
    """Agreement of the judge without and with people's corrections in its prompt."""

    left_out: int
    before: NotRequired[SideFigures]
    after: NotRequired[SideFigures]


class PairFigures(TypedDict):
    """Pairwise choices: the judge against the reviewers' plurality (``pairs``)."""

    n_pairs: int
    n_choices: int
    split: int
    agreement: float | None
    agreement_ci: list[float] | None
    human_ties: float | None
    judge_ties: float | None
    reviewer_agreement: float | None
    tie_margin: float


class PairVerdictFigures(TypedDict):
    """One judge model's verdicts on pairs against the people's (``pair_verdicts``; see
    :mod:`calibration.pair_verdicts`)."""

    n_verdicts: int
    n_compared: int
    split: int
    unjudged: int
    agreement: float | None
    agreement_ci: list[float] | None
    kappa: float | None
    kappa_ci: list[float] | None
    tie_rate: float | None
    tie_rate_ci: list[float] | None
    n_decisive: int
    a_share: float | None
    a_share_ci: list[float] | None
    n_both_orders: int
    flips: int
    flip_rate: float | None
    flip_rate_ci: list[float] | None


class DimensionEntry(TypedDict, total=False):
    """One dimension of the calibration JSON: the figures of ``calibration.report`` (their keys,
    docs/formats.md) and what the service adds beside them."""

    dimension: str
    n: int
    n_groups: int | None
    level: str
    level_source: str
    human_aggregate: str
    human_aggregate_note: str
    majority_ties: int
    alpha: float | None
    alpha_ci: list[float] | None
    alpha_humans: float | None
    pearson: float | None
    spearman: float | None
    kendall: float | None
    kappa: float | None
    kappa_linear: float | None
    kappa_quadratic: float | None
    gwet_ac1: float | None
    gwet_ac2: float | None
    exact: float | None
    within_one: float | None
    bias: float | None
    mae: float | None
    rmse: float | None
    pass_agreement: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    status: str
    reason: str
    more_items_needed: int | None
    pearson_ci: list[float] | None
    spearman_ci: list[float] | None
    pass_kappa: float | None
    null_reasons: dict[str, str]
    reviewers: list[ReviewerFigures]
    adjudicated: Adjudicated
    anchoring: Anchoring
    judge_spread: JudgeSpread
    not_normalised: list[str]
    corrections: Corrections
    best_model: str | None
    estimate: Estimate


class CalibrationReport(TypedDict):
    """``rubricate calibrate --format json``: one rubric version's report."""

    rubric: str
    dataset: str | None
    sample: str
    group_by: str | None
    human_aggregate: str
    normalise: str
    models: list[str]
    level: str | None
    bootstrap: int
    revisions: str
    dimensions: list[DimensionEntry]
    per_model: NotRequired[dict[str, list[dict[str, Json]]]]
    pass_rate_estimate: NotRequired[Estimate]
    pairs: NotRequired[PairFigures]
    pair_verdicts: NotRequired[dict[str, PairVerdictFigures]]


#: A report ``--compare`` sets beside another version's.
ReportT = TypeVar("ReportT", "CalibrationReport", "RunReport")


class SideBySide(TypedDict, Generic[ReportT]):
    """Two versions' reports of one rubric, never pooled (``--compare``)."""

    like_for_like: bool
    banner: str | None
    changes: list[str]
    reports: list[ReportT]


class ReliabilityPoint(TypedDict):
    """One judge level of a reliability view: the items the judge put there and the people's mean
    score on them with its interval (None below two items)."""

    level: float
    n: int
    mean_human: float
    ci: list[float] | None


class Confusion(TypedDict):
    """A judge × human confusion table on a dimension's levels, with its reliability view."""

    levels: list[float]
    table: list[list[int]]
    n: int
    reliability: list[ReliabilityPoint]


class ReviewerOffset(TypedDict):
    """One reviewer's bias (judge − human) and MAE against the judge."""

    reviewer: str
    n: int
    bias: float
    mae: float


class Disagreement(TypedDict):
    """An item where the judge and the humans differ on a dimension."""

    item_pk: int
    item_id: str
    judge: float
    humans: dict[str, float]
    human_mean: float | None
    bias: float | None
    gap: float
    human_spread: float
    adjudicated: float | None


class DimensionDetail(TypedDict):
    """One dimension over the items its calibration figures come from (the TUI's drill-down)."""

    levels: list[float]
    table: list[list[int]]
    sample: str
    n: int
    reviewers: list[ReviewerOffset]
    disagreements: list[Disagreement]


class HumanSaid(TypedDict):
    """A reviewer's current score on an item, with their reason and tags."""

    score: float | None
    reason: str | None
    tags: list[str]
    blind: bool


class JudgeSaid(TypedDict):
    """One judge model's score on an item, with its rationale and evidence."""

    model: str | None
    score: float | None
    rationale: str | None
    evidence: list[str]


class PackEntry(TypedDict):
    """One line of ``calibrate --disagreements``: an item to improve the judge prompt with."""

    rubric: str
    dimension: str
    rank: int
    item_id: str
    judge: float
    human_mean: float | None
    bias: float | None
    gap: float
    human_spread: float
    adjudicated: float | None
    input: str
    output: str
    judge_rationale: list[JudgeSaid]
    humans: dict[str, HumanSaid]


class TurnFigures(TypedDict):
    """A turn-level dimension's turns over a run."""

    scored: int
    mean: float | None
    errors: int
    aggregate: str


class RunDimension(TypedDict):
    """One dimension of ``rubricate report``."""

    dimension: str
    mean: float | None
    band: str | None
    pass_rate: float | None
    judge_errors: int
    cost_usd: float
    turns: NotRequired[TurnFigures]


class Lowest(TypedDict):
    """The lowest group's headline score."""

    group: str
    score: float
    band: str


class Headline(TypedDict):
    """The rubric's headline score over a run."""

    dimension: str
    name: str
    mean: float | None
    band: str | None
    n: int
    lowest: Lowest | None


class BoardRow(TypedDict):
    """One model of the judge's leaderboard."""

    model: str
    n: int
    mean_overall: float | None
    pass_rate: float
    #: where the rubric names a headline: the mean of the items' headline scores (the board's order)
    headline_mean: NotRequired[float | None]


class GroupRankAgreement(TypedDict):
    """Kendall's tau between the judge's ranking and the effective one, within groups."""

    groups: int
    groups_ranked: int
    mean_kendall: float | None


class CorrectedBoard(TypedDict):
    """Pass rate per group, judge's and corrected (``corrected_leaderboard``)."""

    by: str
    confidence: float
    rows: list[RankedEstimate]
    order_changes: list[str]


class RunReport(TypedDict):
    """``rubricate report --format json``: figures on one rubric version's effective scores."""

    rubric: str
    dataset: str | None
    items: int
    headline: Headline | None
    dimensions: list[RunDimension]
    overall_mean: float | None
    overall_band: str | None
    incomplete: int
    safety: dict[str, int]
    leaderboard: list[BoardRow]
    group_rank_agreement: GroupRankAgreement
    corrected_leaderboard: CorrectedBoard | None


class GoldAccuracy(TypedDict):
    """One reviewer's accuracy on gold items (``reviewer accuracy``)."""

    reviewer: str
    n: int
    mae: float
    exact: float
    within_one: float
    mae_by_week: dict[str, float]
    drift: float | None


class TeamRow(TypedDict):
    """One person in one queue (``queue progress``, the TUI's team view)."""

    reviewer: str
    queue: str
    done: int
    left: int
    pace_per_hour: float | None
    stretch_items: int
    last_active: str | None
    #: The person's scores given in this queue that a lead has reviewed, and of those accepted
    #: (each score once, by its latest verdict: ``rubricate review --review-of``).
    lead_reviewed: int
    lead_accepted: int
