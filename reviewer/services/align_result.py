"""The shapes ``rubricate align`` hands out: its ``--format json`` (docs/formats.md, "Align JSON"),
the result each align run stores, and the ``--dry-run`` plan.

They are ``TypedDict``s because they *are* the JSON: a dict built in the order of the keys below
prints byte for byte as the contract says. Nothing here runs; the CLI, ``--write`` and the
calibration screen read the same shapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, NotRequired, TypedDict, cast

if TYPE_CHECKING:
    from calibration.align import Verdict


class Proposal(TypedDict):
    """The judge model's rewrite of a dimension's question."""

    prompt: str
    rationale: str


class Rewrite(TypedDict):
    """The ``rewrite`` candidate's call: the meta-prompt sent, how many dev disagreements it
    showed, the proposal (or the error) and its cost."""

    meta_prompt: list[dict[str, str]]
    disagreements: int
    proposal: Proposal | None
    error: str | None
    cost_usd: float


class CandidateRow(TypedDict):
    """One candidate judged on dev."""

    name: str
    prompt_hash: str
    prompt: str
    k: int
    model: str
    samples: int | None
    dev_alpha: float | None
    dev_n: int
    errors: int
    cost_usd: float
    #: ``done``, ``cost_cap``, ``interrupted`` (the judge run's status) or ``not run``.
    status: str
    error: str | None


class Side(TypedDict):
    """The current (``before``) or the chosen (``after``) on the test items."""

    n: int | None
    alpha: float | None
    alpha_ci: list[float] | None
    kappa: float | None
    bias: float | None


class HeldOutFigures(TypedDict):
    """Both on the test items both scored, and the difference in alpha said in words."""

    n: int
    before: Side
    after: Side
    difference: float | None
    difference_ci: list[float] | None
    verdict: Verdict


class HeldOutErrors(TypedDict):
    """Test items each could not score."""

    before: int
    after: int


class HeldOutReport(HeldOutFigures):
    """:class:`HeldOutFigures` with the errors and the test phase's cost."""

    errors: HeldOutErrors
    cost_usd: float


class AlignResult(TypedDict):
    """One dimension's align. A run that stopped early (``--max-cost``, Ctrl-C, a failure) is
    stored with the keys it reached; a finished one (``status`` ``done``, as ``--format json``
    prints it) has every key, ``rewrite`` only with a ``rewrite`` candidate."""

    dimension: str
    run: int
    model: str
    seed: int
    test_share: float
    dev_items: NotRequired[list[str]]
    test_items: NotRequired[list[str]]
    rewrite: NotRequired[Rewrite]
    candidates: NotRequired[list[CandidateRow]]
    chosen: NotRequired[str]
    test: NotRequired[HeldOutReport]
    status: NotRequired[str]


class AlignParams(TypedDict):
    """What an align run was asked, stored as the run opens."""

    seed: int
    test_share: float
    candidates: list[str]
    models: list[str]
    samples: int | None
    max_cost: float | None
    draws: int
    api_base: str | None


class CandidatePlan(TypedDict):
    """``--dry-run``: one candidate's dev calls and their cost (None: no price for the model)."""

    name: str
    model: str
    calls: int
    cost_usd: float | None


class DimensionPlan(TypedDict):
    """``--dry-run``: one dimension's split sizes, candidates, and the calls and cost in all."""

    dimension: str
    dev_items: int
    test_items: int
    candidates: list[CandidatePlan]
    test_calls: int
    calls: int
    cost_usd: float | None


def stored(result: Mapping[str, object]) -> AlignResult:
    """An align run's stored result read back as the shape :func:`reviewer.services.align.run`
    wrote it (the store keeps it as JSON and hands it back as it is)."""
    return cast(AlignResult, result)
