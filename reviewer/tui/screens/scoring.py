"""What the item screen and the pair view share: the keys that score one dimension of one item.

A subclass says which item and dimension the keys act on (:attr:`ScoringScreen.target`), keeps
``focus_index`` (the focused dimension of that item) and re-renders in :meth:`_refresh_all`.
Every score goes to the app's writer the moment it is entered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.screen import Screen

from reviewer.safetext import safe, safe_line, safe_text
from reviewer.tui.screens.reason import ReasonDialog, ReasonResult
from reviewer.tui.viewmodel import DimState, ItemState

if TYPE_CHECKING:
    from reviewer.tui.app import ReviewApp


def digit_to_score(digit: int, dim_scale_min: float, dim_scale_max: float,
                   levels: tuple[float, ...] | None) -> float | None:
    """The score a digit key means on a scale, or None if it is not on it (``0`` is 10 on 1–10)."""
    value = 10.0 if digit == 0 and dim_scale_max == 10 and dim_scale_min >= 1 else float(digit)
    if levels is not None:
        return value if value in levels else None
    return value if dim_scale_min <= value <= dim_scale_max else None


def verdict(state: ItemState, sep: str = "   →   ") -> Text:
    """The judge's overall, band and pass/fail, then (after ``sep``) the effective one with this
    reviewer's scores over the judge's."""
    t = Text()
    for i, (label, r) in enumerate((("judge", state.judge_result()), ("effective", state.effective_result()))):
        if i:
            t.append(sep)
        t.append(f"{label} ", style="dim")
        if r.overall is None:
            t.append("—")
            continue
        color = r.band.color if r.band and r.band.color else "white"
        t.append(f"{r.overall:.2f} ", style="bold")
        t.append(f" {r.band.label if r.band else ''} ", style=f"black on {color}")
        t.append("  pass" if r.passed else "  fail", style="green" if r.passed else "red")
    return t


def highlight(output: str, quotes: list[str]) -> Text:
    """The output with the judge's evidence quotes highlighted (both made safe: control characters
    shown as placeholders, never read as markup)."""
    text = safe_text(output)
    for quote in quotes:
        if isinstance(quote, str) and len(quote) >= 4:
            text.highlight_words([safe(quote)], style="black on yellow")
    return text


class ScoringScreen(Screen[None]):
    """Digits, agree, undo and reason on the focused dimension of the focused item."""

    focus_index: int

    @property
    def rapp(self) -> ReviewApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def target(self) -> tuple[ItemState, DimState]:
        """The item and dimension the scoring keys act on."""
        raise NotImplementedError

    def _refresh_all(self) -> None:
        raise NotImplementedError

    def on_mount(self) -> None:
        self._refresh_all()

    def on_screen_resume(self) -> None:
        self._refresh_all()  # a dialog or the pair view may have changed the scores

    def action_score(self, digit: int) -> None:
        """Set the focused dimension's score from a digit key."""
        s, d = self.target
        value = digit_to_score(digit, d.dim.scale.min, d.dim.scale.max, d.dim.scale.levels)
        if value is None:
            self.notify(safe_line(f"{digit} is not on {d.dim.id}'s scale"), severity="warning", markup=False)
            return
        self._record(s, d, value, "score")

    def action_agree(self) -> None:
        """Record agreement: a human score equal to the judge's (not silence)."""
        s, d = self.target
        if d.judge_score is None or not d.judge_visible:
            self.notify("nothing to agree with: score it yourself", severity="warning")
            return
        self._record(s, d, d.judge_score, "agree")

    def _record(self, s: ItemState, d: DimState, value: float, kind: str) -> None:
        kind, blind = s.record(d, value, kind)
        self.rapp.write_score(s, d, value, kind=kind, blind=blind)
        if not d.needs_reason(s.rubric.review.reason_margin) and self.focus_index < len(s.dims) - 1:
            self.focus_index += 1
        self._refresh_all()

    def action_undo(self) -> None:
        """Retract this reviewer's score on the focused dimension (a new row, not a deletion)."""
        s, d = self.target
        if d.my_score is None:
            self.notify("nothing to undo here", severity="warning")
            return
        d.my_score, d.my_reason, d.my_tags = None, None, ()
        self.rapp.write_score(s, d, None, kind="undo", blind=False)
        self._refresh_all()

    @work
    async def action_reason(self) -> None:
        """Ask for a reason (and quick tags) for the focused dimension's score."""
        s, d = self.target
        if d.my_score is None:
            self.notify("score the dimension first, then give the reason", severity="warning")
            return
        result: ReasonResult | None = await self.app.push_screen_wait(ReasonDialog(d.dim.id))
        if result is None:
            return
        d.my_reason, d.my_tags = result.reason, result.tags
        self.rapp.write_score(s, d, d.my_score, kind="score", blind=False, reason=result.reason, tags=result.tags)
        self._refresh_all()
