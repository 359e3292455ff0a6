"""``rubricate judge --batch`` and ``--batch-status RUN``: start a batch run or go on with one,
saying each batch's status as it changes, and the run's totals once it is stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reviewer.safetext import safe_text

if TYPE_CHECKING:
    from rich.console import Console

    from reviewer.services.judge_batch import BatchState
    from reviewer.services.judging import JudgeOptions
    from reviewer.store import Store
    from rubrics.judge.plan import DryRun


def batch_line(model: str, plan: DryRun) -> str:
    """The tail of a ``--dry-run --batch`` line: the batch price and its source."""
    from rubrics.judge.batch import batch_estimate

    cost, source = batch_estimate(model, plan.tokens_in, plan.tokens_out)
    return f"; as a batch: {source}" if cost is None else f"; as a batch ${cost:.4f} ({source})"


def batch_fields(model: str, plan: DryRun) -> dict[str, float | str | None]:
    """``--dry-run --batch --format json``: the batch price and its source beside the live one."""
    from rubrics.judge.batch import batch_estimate

    cost, source = batch_estimate(model, plan.tokens_in, plan.tokens_out)
    return {"batch_cost_usd": cost, "batch_price": source}


class _Say:
    """Prints each batch's status when it changes, and how the call ended."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.seen: dict[str, str] = {}
        self.run_id: int | None = None

    def __call__(self, state: BatchState) -> None:
        self.run_id = state.run_id
        for b in state.batches:
            if self.seen.get(b.batch_id) != b.status:
                self.seen[b.batch_id] = b.status
                self.console.print(safe_text(f"run {state.run_id}: round {b.round} batch {b.batch_id} "
                                             f"({b.requests} request{'' if b.requests == 1 else 's'}) {b.status}"))

    def end(self, state: BatchState) -> None:
        from reviewer.cli.judge_cmds import print_totals
        from reviewer.services.judge_batch import OPEN

        self(state)
        if state.totals is not None:
            print_totals(self.console, state.run_id, state.model, state.totals.as_dict())
        elif state.status == OPEN:
            self.console.print(f"run {state.run_id}: the batches are at the provider; go on with "
                               f"rubricate judge --batch-status {state.run_id}")
        else:
            self.console.print(safe_text(f"run {state.run_id} is already stored ({state.status}): nothing more "
                                         f"to store; rubricate judge --report {state.run_id} shows it"))


def _interrupted(run_id: int | None) -> SystemExit:
    from rich.console import Console

    then = f"; go on with rubricate judge --batch-status {run_id}" if run_id is not None else ""
    Console(stderr=True).print(f"interrupted: the batches go on at the provider{then}")
    return SystemExit(130)


def start(store: Store, options: JudgeOptions, interval: float, wait: bool, console: Console) -> None:
    """``rubricate judge --batch``."""
    from reviewer.services import judge_batch

    say = _Say(console)
    try:
        say.end(judge_batch.start(store, options, interval, wait, say))
    except KeyboardInterrupt:
        raise _interrupted(say.run_id) from None


def go_on(store: Store, run_id: int, api_key: str | None, interval: float, wait: bool, console: Console) -> None:
    """``rubricate judge --batch-status RUN``."""
    from reviewer.services import judge_batch

    say = _Say(console)
    say.run_id = run_id
    try:
        say.end(judge_batch.advance(store, run_id, api_key, interval, wait, say))
    except KeyboardInterrupt:
        raise _interrupted(run_id) from None
