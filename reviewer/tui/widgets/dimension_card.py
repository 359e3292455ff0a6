"""One card per dimension: the judge's score and reasons beside the rubric's anchors.

The anchor the judge's score falls in is marked ``J``, the one the reviewer chose ``H``; in blind
mode the judge's side stays hidden until the reviewer has scored the dimension.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from reviewer.domain.wording import score_text
from reviewer.safetext import safe, safe_line
from reviewer.tui import palette
from reviewer.tui.viewmodel import DimState
from reviewer.tui.widgets.put import put
from rubrics.schema import Dimension


class DimensionCard(Static):
    """Renders a :class:`DimState`; the screen calls :meth:`refresh_state` after each change."""

    DEFAULT_CLASSES = "dimension-card"

    def __init__(self, state: DimState, reason_margin: float, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state
        self.reason_margin = reason_margin
        #: the signature of what is on screen (see :meth:`signature`)
        self.shown: tuple[object, ...] | None = None

    def signature(self) -> tuple[object, ...]:
        """Everything the card shows that a key press can change."""
        s = self.state
        return (s.my_score, s.my_reason, s.my_tags, s.my_blind, s.revealed, s.judge_visible)

    def on_mount(self) -> None:
        self.refresh_state()

    def refresh_state(self) -> None:
        """Re-render from the state and toggle the classes the stylesheet colours by."""
        s = self.state
        self.shown = self.signature()
        self.set_class(s.my_score is not None, "-scored")
        self.set_class(s.judge_error is not None, "-error")
        self.set_class(s.needs_reason(self.reason_margin), "-needs-reason")
        put(self, self._render_state())  # repainted only if it differs, laid out only if its height does

    def _render_state(self) -> Group:
        s, dim = self.state, self.state.dim
        head = Text()
        head.append(safe_line(dim.name or dim.id), style="bold")
        head.append(f"  weight {dim.weight:.2f} · pass ≥ {dim.threshold:g}", style="dim")
        head.append(f"  [{score_text(dim.scale.min)}–{score_text(dim.scale.max)}]", style="dim")
        judge = Text()
        if not s.judge_visible:
            judge.append("judge: hidden until you score (blind)", style="italic dim")
        elif s.judge_error is not None:
            judge.append("judge error: ", style=palette.alarm())
            judge.append(safe(s.judge_error))
            if s.raw_reply:
                judge.append(f"\n  raw reply: {safe_line(s.raw_reply[:160])}", style="dim")
        else:
            judge.append("judge ", style="dim")
            judge.append(score_text(s.judge_score), style="bold")
            judge.append(_label(dim, s.judge_score), style="bold")
            if s.std is not None and len(s.samples) > 1:
                judge.append(f" ± {s.std:.2f} ({', '.join(score_text(x) for x in s.samples)})", style="dim")
            if s.confidence is not None:
                judge.append(f"  confidence {s.confidence:.2f}", style="dim")
            if s.turns:  # a turn-level dimension: each turn's score and the rule that rolled them up
                judge.append(f"\n{dim.turn_aggregate} of turns:", style="dim")
                for t in s.turns:
                    judge.append(f"  {t.turn + 1}: ", style="dim")
                    judge.append(score_text(t.score) if t.score is not None else ("error" if t.error else "n/a"),
                                 style="bold" if t.score is not None else "dim")
            if s.rationale:
                judge.append("\n" + safe(s.rationale))
        mine = Text()
        mine.append("you ", style="dim")
        mine.append(score_text(s.my_score), style="bold cyan" if s.my_score is not None else "dim")
        mine.append(_label(dim, s.my_score), style="bold cyan")
        if s.judge_visible and s.agree_level is not None and s.my_score is None:
            mine.append(f"  enter agrees: {score_text(s.agree_level)}", style="cyan")  # the level enter stores
        if s.my_blind:
            mine.append("  (blind)", style="dim")
        if s.my_reason:
            mine.append(f"  reason: {safe_line(s.my_reason)}", style="italic")
        if s.my_tags:
            mine.append(f"  [{safe_line(', '.join(s.my_tags))}]", style="magenta")
        if s.needs_reason(self.reason_margin):
            mine.append("  press r: a reason is required for this difference", style="bold yellow")
        return Group(head, judge, mine, self._anchors())

    def _anchors(self) -> Text:
        s, dim = self.state, self.state.dim
        judge_anchor = (
            dim.anchor_for(s.judge_score)
            if s.judge_visible and s.judge_score is not None else None
        )
        my_anchor = dim.anchor_for(s.my_score) if s.my_score is not None else None
        out = Text()
        for anchor in dim.anchors:
            marks = ("J" if anchor is judge_anchor else " ") + ("H" if anchor is my_anchor else " ")
            span = score_text(anchor.low) if anchor.low == anchor.high else f"{score_text(anchor.low)}–{score_text(anchor.high)}"
            style = "bold" if marks.strip() else "dim"
            out.append(f"\n {marks} {span:>5} {safe_line(anchor.label)}", style=style)
            if anchor.description and marks.strip():
                out.append(f" — {safe(anchor.description)}", style="dim")
        return out


def _label(dim: Dimension, score: float | None) -> str:
    """On a categorical (nominal) dimension, the label a score stands for (" safe"); else ""."""
    if score is None or dim.measurement_level != "nominal":
        return ""
    label = dim.label_for(score)
    return f" {label}" if label else ""
