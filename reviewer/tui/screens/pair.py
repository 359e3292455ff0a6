"""The pair view: two items of one group side by side (REVAL's counterfactual pairs, two answers
to one question), scored like single items, and — where the rubric is pairwise — the reviewer's
choice of the better one or a tie.

``h``/``l`` (or the arrows) pick the side, ``j``/``k`` the dimension; digits, ``enter``, ``r`` and
``u`` act on the focused side's focused dimension exactly as on the item screen. In a group of more
than two, ``o`` (``O`` back) puts the next of the group's other items beside the one the pair was
opened on ("partner 2 of 3"), each pair with its own choice; ``e`` gives the reason for the choice
on screen (optional, with quick tags).
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from reviewer.safetext import safe, safe_line
from reviewer.tui.screens.deferred import deferred
from reviewer.tui.screens.footer import footer, score_bindings
from reviewer.tui.screens.reason import PAIR_TAGS, ReasonDialog, ReasonResult
from reviewer.tui.screens.scoring import ScoringScreen, input_text, output_text, verdict
from reviewer.tui.viewmodel import DimState, ItemState, PairState
from reviewer.tui.widgets.dimension_card import DimensionCard

LETTERS = "AB"


#: the choice keys, one entry in the footer ("abt A · B · tie"; help lists each)
CHOICE = Binding.Group("A · B · tie", compact=True)


class PairScreen(ScoringScreen):
    """Score two items of a group side by side and choose the better one."""

    # In the order the footer shows them, after help and quit: at 80 columns score, agree, the
    # choice, next, undo and (while blind) reveal stay in view.
    BINDINGS = [
        *score_bindings("pair"),
        Binding("h,left", "side(0)", "side A", show=False, id="pair.side_a"),
        Binding("l,right", "side(1)", "side B", show=False, id="pair.side_b"),
        Binding("j,down", "move(1)", "next dim", show=False, id="pair.next_dimension"),
        Binding("k,up", "move(-1)", "prev dim", show=False, id="pair.previous_dimension"),
        Binding("enter", "agree", "agree", id="pair.agree"),
        Binding("a", "choose(0)", "A better", id="pair.a_better", group=CHOICE),
        Binding("b", "choose(1)", "B better", id="pair.b_better", group=CHOICE),
        Binding("t", "choose(-1)", "tie", id="pair.tie", group=CHOICE),
        Binding("n", "next_item", "next", id="pair.next"),
        Binding("v", "reveal", "reveal", id="pair.reveal"),
        Binding("u", "undo", "undo", id="pair.undo"),
        Binding("e", "choice_reason", "why (choice)", id="pair.choice_reason"),
        Binding("o", "partner(1)", "next partner", id="pair.next_partner"),
        Binding("O", "partner(-1)", "prev partner", show=False, id="pair.previous_partner"),
        Binding("r", "reason", "reason", id="pair.reason"),
        Binding("s", "skip", "skip", id="pair.skip"),
        Binding("escape", "back", "back", id="pair.back"),
    ]

    def __init__(self, pair: PairState, over_item: bool = False) -> None:
        super().__init__()
        self.pair = pair
        #: opened from an item screen (escape returns to it) rather than in its place
        self.over_item = over_item
        self.side = next((i for i, s in enumerate(pair.sides) if s.claim is not None), 0)
        #: each side keeps its own focused dimension
        self.focus_by_side = [side.first_unscored() for side in pair.sides]

    @property
    def focus_index(self) -> int:
        """The focused dimension of the focused side."""
        return self.focus_by_side[self.side]

    @focus_index.setter
    def focus_index(self, value: int) -> None:
        self.focus_by_side[self.side] = value

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="pair-title")
        with Horizontal(id="pair-body"):
            for i, s in enumerate(self.pair.sides):
                with VerticalScroll(id=f"pair-{i}", classes="pair-side"):
                    yield Static(id=f"pair-{i}-verdict")
                    yield Static(input_text(s), classes="panel")
                    evidence = [q for d in s.dims if d.judge_visible for q in d.evidence]
                    yield Static(output_text(s, evidence), classes="panel")
                    for j, d in enumerate(s.dims):
                        yield DimensionCard(d, s.rubric.review.reason_margin, id=f"pair-{i}-card-{j}")
        yield Static(id="pair-choice")
        yield footer()

    # --- rendering --------------------------------------------------------------------------
    def _title(self) -> Text:
        p = self.pair
        t = Text()
        t.append(safe_line(f" group {p.group} "), style="bold reverse")
        for i, s in enumerate(p.sides):
            t.append(safe_line(f"  {LETTERS[i]}: {s.item_id}" + (f" ({s.variant})" if s.variant else "")), style="dim")
        if len(p.partners) > 1:
            t.append(f"  partner {p.partner_index + 1} of {len(p.partners)}", style="bold")
            t.append(" (o: next)", style="dim")
        t.append(safe_line(f"  {p.rubric.ref}"), style="dim")
        return t

    def _choice_text(self) -> Text:
        p, t = self.pair, Text()
        if any(side.judge_hidden for side in p.sides):
            t.append("judge on the pair: hidden until you have scored both (blind)\n", style="italic dim")
        else:
            for line in p.judge_lines:
                t.append(f"judge on the pair · {safe(line)}\n", style="dim")
        t.append("your choice: ", style="bold")
        if p.choice is None:
            t.append("none yet", style="italic")
        elif p.choice < 0:
            t.append("tie", style="bold yellow")
        else:
            t.append(safe_line(f"{LETTERS[p.choice]} better ({p.sides[p.choice].item_id})"), style="bold green")
        if p.choice is not None and (p.reason or p.tags):
            t.append(" — because ", style="dim")
            t.append(safe_line(p.reason or ""))
            if p.tags and p.reason != ", ".join(p.tags):
                t.append(safe_line(f" [{', '.join(p.tags)}]"), style="dim")
        if p.rubric.review.pairwise:
            t.append("   a: A better · b: B better · t: tie · e: why", style="dim")
        return t

    def _refresh_all(self) -> None:
        for i, s in enumerate(self.pair.sides):
            column = self.query_one(f"#pair-{i}", VerticalScroll)
            column.set_class(i == self.side, "-focused-side")
            head = Text(f"{LETTERS[i]}  ", style="bold")
            head.append(verdict(s, sep="  "))  # half a screen wide: the short form
            head.append(f"\nscored {s.scored_count()}/{len(s.dims)}", style="dim")
            self.query_one(f"#pair-{i}-verdict", Static).update(head)
            for j in range(len(s.dims)):
                card = self.query_one(f"#pair-{i}-card-{j}", DimensionCard)
                card.set_class(i == self.side and j == self.focus_by_side[i], "-focused")
                if card.shown != card.signature():
                    card.refresh_state()
        self.query_one("#pair-choice", Static).update(self._choice_text())
        self.call_after_refresh(self._scroll_to_focus)

    @deferred
    def _scroll_to_focus(self) -> None:
        self.query_one(f"#pair-{self.side}-card-{self.focus_index}", DimensionCard).scroll_visible(animate=False, top=True)

    def _focus_on(self, state: ItemState, d: DimState) -> None:
        self.side = self.pair.sides.index(state)
        self.focus_index = state.dims.index(d)
        self._refresh_all()

    @property
    def target(self) -> tuple[ItemState, DimState]:
        """The side and dimension keys act on."""
        s = self.pair.sides[self.side]
        return s, s.dims[self.focus_index]

    # --- actions ----------------------------------------------------------------------------
    def action_side(self, index: int) -> None:
        """Focus side A or B."""
        self.side = index
        self._refresh_all()

    def action_move(self, step: int) -> None:
        """Focus the next or previous dimension of the focused side."""
        n = len(self.pair.sides[self.side].dims)
        self.focus_index = (self.focus_index + step) % n
        self._refresh_all()

    def action_reveal(self) -> None:
        """Show the judge's side on both items; stored, so it stays shown on a later open."""
        self.rapp.write_reveal(*(s for s in self.pair.sides if s.judge_hidden))
        for s in self.pair.sides:
            for d in s.dims:
                d.revealed = True
        self._refresh_all()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``a``/``b``/``t`` exist only where the rubric is pairwise (hidden elsewhere); the
        reveal only while a judge score is hidden."""
        if action in ("choose", "choice_reason"):
            return self.pair.rubric.review.pairwise
        if action == "partner":
            return len(self.pair.partners) > 1
        if action == "reveal":
            return any(side.judge_hidden for side in self.pair.sides)
        return True

    def action_choose(self, choice: int) -> None:
        """A or B is the better one, or (``-1``) a tie; a new choice supersedes the last."""
        self.pair.choice = choice
        self.pair.reason, self.pair.tags = None, ()  # a new choice starts without a reason
        self.rapp.choose_in_pair(self.pair, choice)
        self._refresh_all()

    @work
    async def action_choice_reason(self) -> None:
        """Say why (optional, quick tags allowed): the choice on screen is stored again with it."""
        p = self.pair
        if p.choice is None:
            self.notify("choose first (a, b or t), then say why", severity="warning")
            return
        said = "a tie" if p.choice < 0 else f"{LETTERS[p.choice]} better"
        result: ReasonResult | None = await self.app.push_screen_wait(ReasonDialog(
            "choice", prompt=Text(f"Why {said}? (optional)"), tags=PAIR_TAGS, required=False))
        if result is None or not (result.reason or result.tags):
            return
        p.reason, p.tags = result.reason, result.tags
        self.rapp.choose_in_pair(p, p.choice, result.reason, result.tags)
        self._refresh_all()

    def action_partner(self, step: int) -> None:
        """Put the next (or previous) item of the group beside the one the pair was opened on."""
        self.rapp.cycle_partner(self.pair, step, self.over_item)

    def _leave(self) -> bool:
        """Pop back to the item screen when opened over it; True when that happened."""
        if self.over_item:
            self.app.pop_screen()
        return self.over_item

    def action_next_item(self) -> None:
        """Finish the pair and open the next item of the queue."""
        if self._refuse_unexplained(*self.pair.sides, labels=tuple(LETTERS)):
            return
        if self.pair.rubric.review.pairwise and self.pair.choice is None:
            self.notify("choose the better one first: a, b or t (tie)", severity="error")
            return
        self._leave()
        sides = self.pair.sides
        self.rapp.advance(*sides, finished=any(x.scored_count() for x in sides) or self.pair.choice is not None)

    def action_skip(self) -> None:
        """Skip: the item returns to the queue for someone else."""
        self._leave()
        self.rapp.advance(*self.pair.sides, finished=False, skip=True)

    def action_back(self) -> None:
        """Back to the item screen, or (opened in its place) to the queue."""
        if not self._leave():
            self.rapp.leave_item(*self.pair.sides)


__all__ = ["PairScreen"]
