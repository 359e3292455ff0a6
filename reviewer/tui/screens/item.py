"""The item screen: the output beside one card per dimension, scored from the keyboard.

Every score goes to the store's writer the moment it is entered; the screen updates its own state
at once, so the effective overall, band and pass/fail change live, and says so when the reviewer's
scores flip the judge's verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Collapsible, Static

from reviewer.domain.comments import Comment
from reviewer.domain.corrections import Correction, unchanged
from reviewer.domain.marks import Mark, current_marks, marked_source
from reviewer.safetext import safe, safe_line, safe_text
from reviewer.tui import palette
from reviewer.tui.messages import CorrectionDrawn, WriteFailed, Written
from reviewer.tui.screens.comment import CommentDialog
from reviewer.tui.screens.correction import CorrectionEditor, correction_head, correction_text
from reviewer.tui.screens.deferred import deferred
from reviewer.tui.screens.footer import footer, score_bindings
from reviewer.tui.screens.mark import MarkScreen
from reviewer.tui.screens.scoring import (
    ScoringScreen,
    cap_text,
    digit_to_score,
    input_text,
    output_text,
    reveal_text,
    verdict,
)
from reviewer.tui.viewmodel import DimState, ItemState
from reviewer.tui.widgets.dimension_card import DimensionCard
from reviewer.tui.widgets.put import put
from reviewer.tui.widgets.textview import TextView

__all__ = ["ItemScreen", "digit_to_score"]


class ItemScreen(ScoringScreen):
    """Score one item. ``j``/``k`` move between dimensions, digits score the focused one."""

    # In the order the footer shows them, after help and quit: what a reviewer presses most comes
    # first (80 columns show score, agree, next, undo and, while blind, reveal); ``enter`` agrees
    # even when a panel (context) has the focus.
    BINDINGS = [
        *score_bindings("item"),
        Binding("enter", "agree", "agree", id="item.agree", priority=True),
        Binding("n", "next_item", "next", id="item.next"),
        Binding("u", "undo", "undo", id="item.undo"),
        Binding("v", "reveal", "reveal", id="item.reveal"),
        Binding("r", "reason", "reason", id="item.reason"),
        Binding("s", "skip", "skip", id="item.skip"),
        Binding("f", "flag", "flag", id="item.flag"),
        Binding("c", "context", "context", id="item.context"),
        Binding("C", "comment", "comment", id="item.comment"),
        Binding("m", "raw", "raw/markdown", id="item.raw"),
        Binding("j,down", "move(1)", "next dim", show=False, id="item.next_dimension"),
        Binding("k,up", "move(-1)", "prev dim", show=False, id="item.previous_dimension"),
        Binding("p", "previous_item", "previous", id="item.previous"),
        Binding("colon", "jump", "go to id", id="item.jump"),
        Binding("w", "pair", "pair view", id="item.pair"),
        Binding("escape", "back", "queue", id="item.back"),
        # (not in the footer: 80 columns have no room left; help and the README list it)
        Binding("e", "correct", "correct answer", show=False, id="item.correct"),
        Binding("h", "history", "history", show=False, id="item.history"),
        Binding("x", "mark", "mark span", show=False, id="item.mark"),
    ]

    def __init__(self, state: ItemState) -> None:
        super().__init__()
        self.state = state
        self.focus_index = state.first_unscored()
        self._was_hidden = state.judge_hidden
        #: the output shown as written (``m``) rather than rendered as markdown; per item
        self.raw = False
        #: which dimensions' judge side (evidence, turn scores) the texts show now
        self._shown_judge = self._judge_shown()
        #: the widgets every item changes, found once (a query walks the DOM): set on mount
        self._cards: list[DimensionCard] = []
        #: the corrected answer the panel shows (a diff is drawn once per correction, not per key)
        self._shown_correction: tuple[int, int, int, Correction | None] | None = None
        #: span marks handed to the writer, by ticket (a refused one is taken off the output)
        self._marking: dict[int, tuple[ItemState, Mark]] = {}

    def on_mount(self) -> None:
        q = self.query_one
        self._cards = [q(f"#card-{i}", DimensionCard) for i in range(len(self.state.dims))]
        self._title_w, self._summary_w = q("#item-title", Static), q("#item-summary", Static)
        self._flags_w, self._comments_w = q("#item-flags", Static), q("#item-comments", Static)
        self._correction_w = q("#item-correction", Static)
        self._input_w, self._output_w = q("#item-input", TextView), q("#item-output", TextView)
        self._left, self._right = q("#item-left", VerticalScroll), q("#item-right", VerticalScroll)
        super().on_mount()

    def compose(self) -> ComposeResult:
        s = self.state
        yield Static(self._title(), id="item-title")
        with Horizontal(id="item-body"):
            with VerticalScroll(id="item-left"):
                yield TextView(input_text(s, self.raw), id="item-input", classes="panel")
                output = TextView(output_text(s, self._evidence(), self.raw), id="item-output", classes="panel")
                output.border_title = self._mode()
                yield output
                yield Static(id="item-correction", classes="panel")
                if s.context:
                    with Collapsible(title="context", collapsed=True):
                        yield Static(safe_text(s.context), classes="-source")
                if s.reference:
                    with Collapsible(title="reference", collapsed=True):
                        yield Static(safe_text(s.reference), classes="-source")
                yield Static(self._flags_text(), id="item-flags", classes="panel -flagged")
                yield Static(self._comments_text(), id="item-comments", classes="panel")
            with Vertical(id="item-side"):
                yield Static(id="item-summary")
                with VerticalScroll(id="item-right"):
                    for i, d in enumerate(s.dims):
                        yield DimensionCard(d, s.rubric.review.reason_margin, id=f"card-{i}")
        yield footer()

    # --- rendering --------------------------------------------------------------------------
    def _title(self) -> Text:
        s = self.state
        t = Text()
        t.append(safe_line(f" {s.item_id} "), style="bold reverse")
        t.append(safe_line(f"  {s.rubric.ref}  {s.dataset}"), style="dim")
        if s.group:
            t.append(safe_line(f"  group {s.group}/{s.variant or '?'}"), style="dim")
        t.append("   ")
        t.append(self.rapp.pace())
        return t

    @deferred
    def show_progress(self) -> None:
        """The queue's progress has been read again: show it in the header."""
        if self._cards:
            put(self._title_w, self._title())

    def _mode(self) -> str:
        return "output · as written (m: markdown)" if self.raw else "output · markdown (m: as written)"

    def _judge_shown(self) -> tuple[bool, ...]:
        return tuple(d.judge_visible for d in self.state.dims)

    def _evidence(self) -> list[str]:
        """The judge's evidence quotes that may be shown (not while blind)."""
        return [q for d in self.state.dims if d.judge_visible for q in d.evidence]

    def _show_texts(self) -> None:
        """Put the input (or chat) and the output in their panels, rendered or raw, with the
        evidence and (conversations) the turn scores the judge may show."""
        self._shown_judge = self._judge_shown()
        output = self._output_w
        if output.border_title != self._mode():  # (setting it repaints, even to the same title)
            output.border_title = self._mode()
        output.update(output_text(self.state, self._evidence(), self.raw))
        self._input_w.update(input_text(self.state, self.raw))

    def _flags_text(self) -> Text:
        t = Text("safety flags\n", style=palette.alarm())
        for f in self.state.flags:
            t.append(safe_line(f" {f.gate} ({f.detector}) [{f.status}]: "), style=palette.fail())
            t.append(safe(f.matched), style=palette.alarm_text())
            if f.context:
                t.append(safe(f"  {f.context}"), style="dim")  # a detector's excerpt marks its own cuts
            t.append("\n")
        return t

    def _comments_text(self) -> Text:
        shown = self.state.shown_comments()
        t = Text(f"comments ({len(shown)})\n", style="bold")
        for c in shown:
            when = f"{c.created_at:%Y-%m-%d %H:%M} UTC" if c.created_at is not None else "just now"
            t.append(safe_line(f" {c.reviewer}"), style="bold cyan")
            t.append(f" · {when}", style="dim")
            if c.revision != self.state.revision:
                t.append(" (on earlier content)", style="dim yellow")
            t.append(": ")
            t.append(safe(c.text))
            t.append("\n")
        return t

    def _show_comments(self) -> None:
        panel = self._comments_w
        panel.display = bool(self.state.shown_comments())
        put(panel, self._comments_text())

    def _show_correction(self) -> None:
        """The newest corrected answer this reviewer may read, drawn again only when it changed."""
        shown = self.state.shown_corrections()
        now = (self.state.item_pk, self.state.revision, len(shown), shown[-1] if shown else None)
        if now == self._shown_correction:
            return
        self._shown_correction = now
        self._correction_w.display = bool(shown)
        if not shown:
            put(self._correction_w, Text())
            return
        placeholder = correction_head(shown)
        placeholder.append("\ncomparing it with the output…", style="dim")
        put(self._correction_w, placeholder)
        self._draw_correction(now, shown, self.state.output, self.state.revision)

    @work(thread=True, exclusive=True, group="correction-diff")
    def _draw_correction(self, key: tuple[Any, ...], shown: list[Correction], output: str, revision: int) -> None:
        """The corrected answer's panel, its diff computed here, off the UI thread (pure)."""
        self.post_message(CorrectionDrawn(key, correction_text(shown, output, revision)))

    def on_correction_drawn(self, message: CorrectionDrawn) -> None:
        if message.key != self._shown_correction:
            return  # another item or correction is shown since: its own panel follows
        self._correction_w.display = message.text is not None
        put(self._correction_w, message.text if message.text is not None else Text())

    def _show_flags(self) -> None:
        panel = self._flags_w
        panel.display = bool(self.state.flags)
        put(panel, self._flags_text())

    def _summary(self) -> Text:
        judge, eff = self.state.judge_result(), self.state.effective_result()
        t = verdict(self.state)
        t.append(f"\nscored {self.state.scored_count()}/{len(self.state.dims)}", style="dim")
        if not self.state.judge_hidden and judge.overall is not None and eff.overall is not None \
                and judge.passed != eff.passed:
            t.append("   your scores flip the verdict: "
                     + ("fail → pass" if eff.passed else "pass → fail"), style="bold yellow")
        capped = cap_text(self.state)
        if capped is not None:
            t.append("\n")
            t.append(capped)
        revealed = reveal_text(self.state)
        if revealed is not None:
            t.append("\n")
            t.append(revealed)
        return t

    def _refresh_all(self) -> None:
        for i, (card, d) in enumerate(zip(self._cards, self.state.dims, strict=True)):
            card.set_class(i == self.focus_index, "-focused")
            if card.state is not d or card.shown != card.signature():  # re-render only what changed
                card.state = d
                card.refresh_state()
        put(self._summary_w, self._summary())
        self._show_flags()
        self._show_comments()
        self._show_correction()
        if self._judge_shown() != self._shown_judge:  # a reveal: quotes and turn scores shown now
            self._show_texts()
        hidden = self.state.judge_hidden
        if hidden != self._was_hidden:  # the reveal key shows only while something is hidden
            self._was_hidden = hidden
            self.refresh_bindings()
        # the focused card is always in view: the next key acts on what the reviewer sees
        self.call_after_refresh(self._scroll_to_focus)

    @deferred
    def _scroll_to_focus(self) -> None:
        if self.focus_index >= len(self.state.dims):
            return
        card = self._cards[self.focus_index]
        column = self._right.region
        head = card.region.y, card.region.y + min(card.region.height, 4)
        if card.region.height and column.y <= head[0] and head[1] <= column.bottom:
            return  # its head is in view already: no scroll, no repaint
        card.scroll_visible(animate=False, top=True)

    def _focus_on(self, state: ItemState, d: DimState) -> None:
        self.focus_index = state.dims.index(d)
        self._refresh_all()

    @staticmethod
    def _shape(state: ItemState) -> tuple[Any, ...]:
        """What :meth:`compose` builds differently from item to item."""
        return (state.rubric.ref, len(state.dims), bool(state.context), bool(state.reference))

    def show(self, state: ItemState) -> bool:
        """Show ``state`` in this screen's widgets, when it has this item's shape (same rubric and
        panels): building a new screen per item costs more than a reviewer should wait. Returns
        False when a new screen is needed."""
        if self._shape(state) != self._shape(self.state):
            return False
        self.state, self.focus_index = state, state.first_unscored()
        self.done = []
        put(self._title_w, self._title())
        self.raw = False
        self._show_texts()
        sources = [t for t in (state.context, state.reference) if t]
        if sources:
            for collapsible, text in zip(self.query(Collapsible), sources, strict=True):
                collapsible.collapsed = True
                put(collapsible.query_one(".-source", Static), safe_text(text))
        self._left.scroll_home(animate=False)
        self._right.scroll_home(animate=False)
        self._refresh_all()
        return True

    @property
    def focused_dim(self) -> DimState:
        """The dimension digits score."""
        return self.state.dims[self.focus_index]

    @property
    def target(self) -> tuple[ItemState, DimState]:
        """The item and dimension the scoring keys act on."""
        return self.state, self.focused_dim

    # --- actions ----------------------------------------------------------------------------
    def action_move(self, step: int) -> None:
        """Focus the next or previous dimension."""
        self.focus_index = (self.focus_index + step) % len(self.state.dims)
        self._refresh_all()

    def action_raw(self) -> None:
        """Show this item's output (and chat) as written, or rendered as markdown again."""
        self.raw = not self.raw
        self._show_texts()

    def action_reveal(self) -> None:
        """Show the judge's side of every dimension; stored, so it stays shown on a later open."""
        if self.state.judge_hidden:
            self.rapp.write_reveal(self.state)
        for d in self.state.dims:
            d.revealed = True
        self._refresh_all()
        self.refresh_bindings()

    def action_next_item(self) -> None:
        """Finish this item and open the next one in the queue."""
        if self._refuse_unexplained(self.state):
            return
        scored = self.state.scored_count()
        if scored and not self.state.review_complete():
            self.notify(f"{scored} of {len(self.state.dims)} dimensions scored: the item stays in progress "
                        "(open it from the queue to finish)", severity="warning", markup=False)
        self.rapp.advance(self.state, finished=scored > 0)

    def action_jump(self) -> None:
        """Go to an item by its id."""
        self.rapp.jump(self.state)

    def action_previous_item(self) -> None:
        """Go back to the item before this one."""
        self.rapp.go_back(self.state)

    def action_skip(self) -> None:
        """Skip: the item returns to the queue for someone else."""
        self.rapp.advance(self.state, finished=False, skip=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that do nothing on this item are hidden: the pair view without a group, the
        reveal with nothing hidden, context and reference without either."""
        if action == "pair":
            return self.state.group is not None
        if action == "reveal":
            return self.state.judge_hidden
        if action == "context":
            return bool(self.state.context or self.state.reference)
        return True

    def action_context(self) -> None:
        """Open or close the context (and reference) panels; the focus stays on the scoring."""
        panels = list(self.query(Collapsible))
        if not panels:
            return
        show = all(p.collapsed for p in panels)
        for p in panels:
            p.collapsed = not show
        self.set_focus(None)
        if show:
            self.call_after_refresh(panels[0].scroll_visible, animate=False, top=True)

    async def _edited(self, editor: ModalScreen[str | None], saved: str,
                      keep: Callable[[ItemState, str], str | None]) -> bool:
        """Open ``editor`` on this item; ``keep`` adds the text it gives to the item's state and
        hands it to the writer (never waited for here), or says why nothing is stored. Said on
        screen either way (``saved``: what was saved, e.g. "comment on"), and shown straight away
        while the item is still on screen; True then."""
        state = self.state
        text: str | None = await self.app.push_screen_wait(editor)
        if text is None:
            return False
        why = keep(state, text)
        if why is not None:
            self.notify(why, markup=False)
            return False
        self.notify(safe_line(f"{saved} {state.item_id} saved"), markup=False)
        if state is not self.state:
            return False
        self._refresh_all()
        return True

    @work
    async def action_comment(self) -> None:
        """Write a comment on the item for later reviewers: handed to the writer at once (never
        waited for here), and listed on the screen straight away."""
        def keep(state: ItemState, text: str) -> None:
            state.comments.append(Comment(0, state.item_pk, self.rapp.session.reviewer, text, state.revision))
            self.rapp.write_comment(state, text)

        await self._edited(CommentDialog(self.state.item_id), "comment on", keep)

    def action_pair(self) -> None:
        """Open this item beside the other items of its group."""
        self.rapp.open_pair(self.state)

    def action_back(self) -> None:
        """Back to the queue list (the lease is released)."""
        self.rapp.leave_item(self.state)

    @work
    async def action_correct(self) -> None:
        """Write the answer as it should have been, in an editor holding the output: handed to the
        writer at once (never waited for here) and shown straight away; text identical to the
        output or to one's own last correction stores nothing, and says so."""
        me = self.rapp.session.reviewer

        def keep(state: ItemState, text: str) -> str | None:
            why = unchanged(text, state.output, state.corrections, me, state.revision)
            if why is None:
                state.corrections.append(Correction(0, state.item_pk, me, text, state.revision))
                self.rapp.write_correction(state, text)
            return why

        s = self.state
        if await self._edited(CorrectionEditor(s.item_id, s.output, s.revision), "corrected answer of", keep):
            # what was saved is shown where the reviewer looks (80 columns: below the output)
            self.call_after_refresh(self._correction_w.scroll_visible, animate=False, top=True)

    def action_history(self) -> None:
        """One's own last decisions on this queue; enter there goes to that item (this one's
        lease is given back, as for ``:``)."""
        from reviewer.tui.screens.history import HistoryScreen

        state = self.state

        def done(item_pk: int | None) -> None:
            if item_pk is not None and item_pk != state.item_pk:
                self.rapp.go_to(item_pk, state)

        self.app.push_screen(HistoryScreen(), done)

    @work
    async def action_mark(self) -> None:
        """Mark a span of the output beside the focused dimension (mark mode: :mod:`mark`). The
        mark is handed to the writer the moment it ends (after the dimension's score, so it
        belongs to that score's row) and drawn on the output; then, when the dimension is
        scored, the reason dialog opens: a mark says where, the reason says why."""
        s, d = self.target
        source = marked_source(s.output, s.conversation)
        if not source:
            self.notify("nothing to mark: this item has no output text", severity="warning")
            return
        mine = tuple((m.start, m.end) for m in current_marks(s.marks, s.revision, s.reviewer))
        span: tuple[int, int] | None = await self.app.push_screen_wait(MarkScreen(s.item_id, d.dim.id, source, mine))
        if span is None:
            return
        start, end = span
        mark = Mark(0, s.item_pk, s.revision, d.dim.id, s.reviewer, start, end, source[start:end])
        s.marks.append(mark)
        self._marking[self.rapp.write_mark(s, d.dim.id, start, end).number] = (s, mark)
        self.notify(safe_line(f"marked {end - start} characters beside {d.dim.id}"), markup=False)
        if s is self.state:
            self._show_texts()
            if d.my_score is not None:
                self.action_reason()
            else:
                self.notify(safe_line(f"score {d.dim.id}, then r gives the reason for the mark"), markup=False)

    def written(self, message: Written) -> None:
        """A span mark landed: its ticket is let go (nothing left to take off); anything else as
        every scoring screen."""
        if self._marking.pop(message.ticket, None) is None:
            super().written(message)

    def write_failed(self, message: WriteFailed) -> None:
        """A refused span mark is taken off the output; anything else as every scoring screen."""
        marked = self._marking.pop(message.ticket, None)
        if marked is None:
            super().write_failed(message)
            return
        s, mark = marked
        if mark in s.marks:
            s.marks.remove(mark)
        message.undone.append(f"mark on {s.item_id} {mark.dimension} taken off")
        if s is self.state:
            self._show_texts()
