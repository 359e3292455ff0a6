"""What the item screen and the pair view share: the keys that score one dimension of one item.

A subclass says which item and dimension the keys act on (:attr:`ScoringScreen.target`), keeps
``focus_index`` (the focused dimension of that item) and re-renders in :meth:`_refresh_all`.
Every score goes to the app's writer the moment it is entered; one the store refuses is rolled
back on screen with the undo stack (:meth:`ScoringScreen.write_failed`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from rich.text import Text
from textual import work

from reviewer.domain.judge import bias
from reviewer.domain.marks import current_marks, under_review
from reviewer.domain.safety import WAITING
from reviewer.domain.wording import score_text
from reviewer.safetext import safe_line, safe_text
from reviewer.tui import palette
from reviewer.tui.host import AnswersWrites, ReviewHost, host_of
from reviewer.tui.messages import WriteFailed
from reviewer.tui.screens.footer import AppKeysFirst
from reviewer.tui.screens.reason import FLAG_TAGS, ReasonDialog, ReasonResult
from reviewer.tui.viewmodel import DimState, FlagState, ItemState
from reviewer.tui.widgets.chat import chat_text, output_of, turn_badges
from reviewer.tui.widgets.markdown import body
from rubrics.aggregate import ItemScore


def digit_to_score(digit: int, dim_scale_min: float, dim_scale_max: float,
                   levels: tuple[float, ...] | None) -> float | None:
    """The score a digit key means on a scale, or None if it is not on it (``0`` is 10 on 1–10)."""
    value = 10.0 if digit == 0 and dim_scale_max == 10 and dim_scale_min >= 1 else float(digit)
    if levels is not None:
        return value if value in levels else None
    return value if dim_scale_min <= value <= dim_scale_max else None


def verdict(state: ItemState, sep: str = "   →   ") -> Text:
    """The judge's overall, band and pass/fail, then (after ``sep``) the effective one with this
    reviewer's scores over the judge's; where the rubric names a headline (REVAL's treatment
    parity), each leads with it and its band, the overall beside it as the mean. While any judge
    score is hidden (blind) neither is shown: both are computed from the judge's scores."""
    t = Text()
    if state.judge_hidden:
        t.append("judge hidden until you have scored every dimension (blind)", style="italic dim")
        return t
    for i, (label, r) in enumerate((("judge", state.judge_result()), ("effective", state.effective_result()))):
        if i:
            t.append(sep)
        t.append(f"{label} ", style="dim")
        if r.headline_dim is not None:
            _headline(t, state.rubric.dimension(r.headline_dim).name or r.headline_dim, r)
        if r.overall is None:  # incomplete: no band, no pass, and why
            t.append("incomplete", style="bold yellow")
            if r.reason:
                t.append(safe_line(f" ({r.reason})"), style="dim")
            continue
        color = r.band.color if r.band and r.band.color else "white"
        t.append(f"{r.overall:.2f} ", style="bold")
        t.append(safe_line(f" {r.band.label if r.band else ''} "), style=palette.label(color))
        t.append("  pass" if r.passed else "  fail", style="green" if r.passed else palette.fail())
    return t


def _headline(t: Text, name: str, r: ItemScore) -> None:
    """The headline's name, score and band chip, then "· mean" before the overall."""
    t.append(safe_line(f"{name.lower()} "), style="dim")
    if r.headline is None:
        t.append("— ", style="bold")
    else:
        t.append(f"{r.headline:.2f} ", style="bold")
        band = r.headline_band
        if band is not None:
            t.append(safe_line(f" {band.label} "), style=palette.label(band.color or "white"))
    t.append(" · mean ", style="dim")


def reveal_text(state: ItemState) -> Text | None:
    """After a blind session's reveal: per dimension scored blind, the reviewer's blind score
    beside the judge's and how far apart they are (and the score since, if revised)."""
    rows = [d for d in state.dims if d.blind_score is not None and d.judge_visible]
    if not rows or state.judge_hidden:
        return None
    t = Text("revealed: ", style="bold")
    for i, d in enumerate(rows):
        if i:
            t.append(" · ")
        t.append(d.dim.id, style="bold")
        t.append(f" you {score_text(d.blind_score)} judge ")
        gap = bias(d.judge_score, d.blind_score)  # the one sign: judge minus the blind score
        if gap is None:
            t.append("error", style=palette.fail())
            continue
        t.append(score_text(d.judge_score))
        same = abs(gap) < 0.005
        t.append(" (same)" if same else f" ({'+' if gap > 0 else '−'}{score_text(abs(gap))})",
                 style="dim" if same else "yellow")
        if d.my_score is not None and d.my_score != d.blind_score:
            t.append(f" → now {score_text(d.my_score)}", style="cyan")
    return t


def input_text(state: ItemState, raw: bool = False) -> Text:
    """The input panel: the chat before the message under review (each message rendered as
    markdown, or ``raw`` as written, with the judge's turn scores beside their turns), else the
    input."""
    if state.conversation:
        badges = turn_badges(state.conversation, state.dims)
        _, head = output_of(state.output, state.conversation)
        marked = under_review(state.conversation) if head is not None else None
        return chat_text(state.conversation, marked, raw, badges)
    return safe_text(state.input or "(no input)")


def output_text(state: ItemState, quotes: list[str], raw: bool = False) -> Text:
    """The output panel: the output (for a conversation, its message under review, marked) as
    markdown, or ``raw`` as written, with the judge's evidence highlighted either way, and the
    reviewer's own span marks on this revision (:func:`reviewer.domain.marks.current_marks`)."""
    badges = turn_badges(state.conversation, state.dims) if state.conversation else None
    text, head = output_of(state.output, state.conversation, badges)
    marks = tuple((m.start, m.end) for m in current_marks(state.marks, state.revision, state.reviewer))
    shown = body(text, raw, tuple(q for q in quotes if isinstance(q, str)), marks)
    return head + shown if head is not None else shown


def _places_apart(capped: float, uncapped: float | None) -> int:
    """Decimal places (2 to 4) that show a cap's value apart from the overall it lowered: a cap
    of 0.667 under 0.670 read "capped at 0.67 (from 0.67)" at two places."""
    places = 2
    while uncapped is not None and places < 4 and f"{capped:.{places}f}" == f"{uncapped:.{places}f}":
        places += 1
    return places


def cap_text(state: ItemState) -> Text | None:
    """Which ceiling or cap set the overall, as the domain fold's aggregate says
    (``ItemScore.capped_by``): the effective overall's, and the judge's when it differs. None
    when nothing capped, or while the judge is hidden (both are computed from its scores)."""
    if state.judge_hidden:
        return None
    judge, eff = state.judge_result(), state.effective_result()
    t = Text()
    for label, r in (("effective", eff), ("judge", judge)):
        if not r.capped_by or r.overall is None or (label == "judge" and r.capped_by == eff.capped_by):
            continue
        if t:
            t.append("\n")
        places = _places_apart(r.overall, r.uncapped)
        t.append(f"{label} capped at {r.overall:.{places}f}", style="bold yellow")
        if r.uncapped is not None:
            t.append(f" (from {r.uncapped:.{places}f})", style="dim")
        t.append(" by ")
        t.append(safe_line("; ".join(r.capped_by)))
    return t or None


@dataclass
class Done:
    """One action on the screen's items, as the undo stack keeps it: the dimension's values
    before a score or reason, or the flag raised (and the write that stores it, whose id an undo
    needs); ``ticket`` names its write, so a refusal rolls it back."""

    state: ItemState
    dim: DimState | None
    before: Mine | None = None
    flag: FlagState | None = None
    written: Future[int] | None = None
    ticket: int | None = None


#: A dimension's score as the reviewer had it: score, reason, tags, first score blind, and the
#: kind, blind mark and sample of the score's row (a reason or an undo stores the score again
#: with them).
Mine = tuple[float | None, str | None, tuple[str, ...], bool, str, bool, str | None]


def _values(d: DimState) -> Mine:
    return d.my_score, d.my_reason, d.my_tags, d.my_blind, d.my_kind, d.my_score_blind, d.my_sample


def _restore(d: DimState, mine: Mine) -> None:
    d.my_score, d.my_reason, d.my_tags, d.my_blind, d.my_kind, d.my_score_blind, d.my_sample = mine


class ScoringScreen(AppKeysFirst, AnswersWrites):
    """Digits, agree, undo and reason on the focused dimension of the focused item. ``u`` undoes
    the last action on the screen's items, wherever it was (the focus goes back to it)."""

    focus_index: int

    def __init__(self) -> None:
        super().__init__()
        #: what ``u`` can undo, last action last
        self.done: list[Done] = []
        #: undos handed to the writer, by ticket: the action undone and the values it had undone
        #: (a refused undo puts both back)
        self.undoing: dict[int, tuple[Done, Mine | None]] = {}

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    @property
    def target(self) -> tuple[ItemState, DimState]:
        """The item and dimension the scoring keys act on."""
        raise NotImplementedError

    def _refresh_all(self) -> None:
        raise NotImplementedError

    def _focus_on(self, state: ItemState, d: DimState) -> None:
        """Move the focus to ``d`` of ``state`` (and scroll it into view)."""
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
        """Record agreement: the level of the scale nearest the judge's score (shown on the card
        before it is pressed), stored with kind ``agree`` — not silence, and never a fraction."""
        s, d = self.target
        level = d.agree_level
        if level is None or not d.judge_visible:
            self.notify("nothing to agree with: score it yourself", severity="warning")
            return
        self._record(s, d, level, "agree")

    def _record(self, s: ItemState, d: DimState, value: float, kind: str) -> None:
        if d.my_score is not None and abs(d.my_score - value) < 1e-9:
            # the same score again: nothing new to store (no duplicate row, no agree over a score)
            if self.focus_index < len(s.dims) - 1:
                self.focus_index += 1
            self._refresh_all()
            return
        done = Done(s, d, _values(d))
        self.done.append(done)
        kind, blind = s.record(d, value, kind)
        done.ticket = self.rapp.write_score(s, d, value, kind=kind, blind=blind, sample=d.my_sample)
        if not d.needs_reason(s.rubric.review.reason_margin) and self.focus_index < len(s.dims) - 1:
            self.focus_index += 1
        self._refresh_all()

    def action_undo(self) -> None:
        """Undo the last action on this screen's items: a score, a reason or a flag; with nothing
        done on this visit, withdraw one's own waiting flag raised earlier. Every undo is a new
        row (a retraction, the score before, or a withdrawn flag), never a deletion."""
        if not self.done:
            self._withdraw_earlier_flag()
            return
        last = self.done.pop()
        s, d = last.state, last.dim
        if last.flag is not None and last.written is not None:
            written = last.written
            self.undoing[self._withdraw(s, last.flag, lambda: int(written.result()))] = (last, None)
            return
        assert d is not None and last.before is not None
        undone = _values(d)
        _restore(d, last.before)
        if d.my_score is None:
            ticket = self.rapp.write_score(s, d, None, kind="undo", blind=False, sample=s.sample)
        else:  # the score before, stored again as it was given (its kind, blind mark and sample)
            ticket = self.rapp.write_score(s, d, d.my_score, kind=d.my_kind, blind=d.my_score_blind,
                                           sample=d.my_sample, reason=d.my_reason, tags=d.my_tags)
        self.undoing[ticket] = (last, undone)
        self.notify(safe_line(f"undone on {d.dim.id}: now {'unscored' if d.my_score is None else f'{d.my_score:g}'}"),
                    markup=False)
        self._focus_on(s, d)

    def _withdraw_earlier_flag(self) -> None:
        """Nothing done on this visit: ``u`` withdraws this reviewer's own flag raised on an
        earlier one, while it waits with no safety decision (the store refuses it after one)."""
        s, _ = self.target
        me = f"human:{self.rapp.session.reviewer}"
        mine = next((f for f in s.flags if f.detector == me and f.status in WAITING and f.flag_id), None)
        if mine is None:
            self.notify("nothing to undo on this item", severity="warning")
        elif mine.decisions or mine.status != "open":
            self.notify(safe_line(f"your flag on {s.item_id} has a safety decision already: it can no longer "
                                  "be withdrawn"), severity="warning", markup=False)
        else:
            self._withdraw(s, mine, lambda: mine.flag_id)

    def _withdraw(self, s: ItemState, flag: FlagState, flag_id: Callable[[], int]) -> int:
        """Withdraw ``flag`` (its id from ``flag_id``, read in the writer: a flag raised just now
        has its id once its own write has landed): a ``withdraw`` decision, never a deletion.
        The write's ticket."""
        if flag in s.flags:
            s.flags.remove(flag)
        ticket = self.rapp.gateway.withdraw_flag(flag_id, self.rapp.session.reviewer).number
        self.notify(safe_line(f"flag on {s.item_id} withdrawn"), markup=False)
        self._refresh_all()
        return ticket

    def write_failed(self, message: WriteFailed) -> None:
        """A write of this screen's was refused: the screen goes back to what the store holds.
        A score or reason is taken off the undo stack (a later action on the same dimension now
        undoes to the values before the refused one), a flag is taken down, an undo is put back."""
        said = self._roll_back(message.ticket)
        if said is not None:
            message.undone.append(said)
            self._refresh_all()

    def _roll_back(self, ticket: int) -> str | None:
        """Roll back the write with ``ticket`` if it is this screen's; what the screen shows now."""
        index = next((i for i, done in enumerate(self.done) if done.ticket == ticket), None)
        if index is not None:
            done = self.done.pop(index)
            s, d = done.state, done.dim
            if done.flag is not None:
                if done.flag in s.flags:
                    s.flags.remove(done.flag)
                return f"flag on {s.item_id} taken down"
            assert d is not None and done.before is not None
            later = next((x for x in self.done[index:] if x.state is s and x.dim is d), None)
            if later is not None:  # the later action now undoes to what the store still holds
                later.before = done.before
                return None
            _restore(d, done.before)
            return f"{s.item_id} {d.dim.id} {'unscored' if d.my_score is None else f'{d.my_score:g}'} again"
        undo = self.undoing.pop(ticket, None)
        if undo is None:
            return None
        last, undone = undo
        self.done.append(last)
        if last.flag is not None:
            last.state.flags.append(last.flag)
            return f"flag on {last.state.item_id} back"
        assert last.dim is not None and undone is not None
        _restore(last.dim, undone)
        return f"undo on {last.state.item_id} {last.dim.dim.id} taken back"

    def _refuse_unexplained(self, *states: ItemState, labels: tuple[str, ...] = ()) -> bool:
        """Whether a score on ``states`` still needs a reason: then say which (each dimension
        after its state's label, when given) and focus the first named, so ``r`` writes its
        reason there."""
        missing = [(i, s, d) for i, s in enumerate(states) for d in s.unexplained()]
        if not missing:
            return False
        named = ", ".join(f"{labels[i]} {d.dim.id}" if labels else d.dim.id for i, _, d in missing)
        self.notify(safe_line(f"a reason is required for {named} (press r)"), severity="error", markup=False)
        _, s, d = missing[0]
        self._focus_on(s, d)
        return True

    @work
    async def action_reason(self) -> None:
        """Ask for a reason (and quick tags) for the focused dimension's score. The score is
        stored again with it, as it was given (its kind, blind mark and sample kept); when the reason
        was required, the focus moves on to the next score on the item still needing one."""
        s, d = self.target
        if d.my_score is None:
            self.notify("score the dimension first, then give the reason", severity="warning")
            return
        required = d.needs_reason(s.rubric.review.reason_margin)
        result: ReasonResult | None = await self.app.push_screen_wait(ReasonDialog(d.dim.id))
        if result is None:
            return
        done = Done(s, d, _values(d))
        self.done.append(done)
        d.my_reason, d.my_tags = result.reason, result.tags
        done.ticket = self.rapp.write_score(s, d, d.my_score, kind=d.my_kind, blind=d.my_score_blind,
                                            sample=d.my_sample, reason=result.reason, tags=result.tags)
        still = s.unexplained()
        if required and still:
            self._focus_on(s, still[0])
        else:
            self._refresh_all()

    @work
    async def action_flag(self) -> None:
        """Send the focused item to the safety queue with a reason (quick tags allowed); one
        waiting flag per item and person, undone with ``u``."""
        s, _ = self.target
        me = f"human:{self.rapp.session.reviewer}"
        if any(f.detector == me and f.status in WAITING for f in s.flags):
            self.notify("you have already flagged this item (u undoes it)", severity="warning")
            return
        result: ReasonResult | None = await self.app.push_screen_wait(ReasonDialog(
            s.item_id, prompt=Text.assemble("Why flag ", safe_text(s.item_id, "bold", newlines=False), " for safety?"), tags=FLAG_TAGS))
        if result is None:
            return
        reason = result.reason
        if result.tags and reason != ", ".join(result.tags):
            reason += f" [{', '.join(result.tags)}]"
        flag = FlagState(0, "reviewer_flag", me, "", 0, 0, reason, "open")
        s.flags.append(flag)
        written = self.rapp.flag_item(s, reason)
        self.done.append(Done(s, None, flag=flag, written=written.future, ticket=written.number))
        self._refresh_all()
