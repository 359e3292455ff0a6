"""The review app, built by :func:`make_app` with its store passed in.

The app owns the flow between screens (queue → item → next item); screens own their own keys and
state. Every store call goes through :mod:`reviewer.tui.gateway`: reads run in thread workers that
post what they read as messages (:class:`ItemLoaded`, …), writes run in order on the gateway's
writer and come back as ``Written``/``WriteFailed``, which the app hands to the screens that keep
the write on their undo stack.
"""

from __future__ import annotations

import contextlib
import gc
import statistics
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import events, work
from textual.app import App
from textual.binding import Binding

from reviewer.safetext import safe_line, safe_text
from reviewer.tui import adapter, palette
from reviewer.tui.config import TuiSettings
from reviewer.tui.gateway import Close, Gateway, Ticket, reads
from reviewer.tui.host import AnswersWrites, ReviewHost, ReviewOf, Session
from reviewer.tui.idlegc import IDLE_S, IdleCollector
from reviewer.tui.messages import (
    Claimed,
    ItemLoaded,
    ItemsFound,
    PairLoaded,
    PartnerLoaded,
    ProgressLoaded,
    ReadFailed,
    RolesLoaded,
    StoreFailed,
    StoreOpened,
    WriteFailed,
    Written,
)
from reviewer.tui.screens.footer import SCORE_KEYS
from reviewer.tui.screens.help import HelpScreen
from reviewer.tui.screens.queue import QueueScreen
from reviewer.tui.viewmodel import DimState, ItemState, PairState

if TYPE_CHECKING:
    from reviewer.store import Store
    from reviewer.store.views import Claim
    from reviewer.tui.firstpage import FirstPage

_S = TypeVar("_S", bound=ItemState | None)
#: While the reviewer is on an item its lease is renewed this many times over the lease's length,
RENEWALS_PER_LEASE = 3
#: but never more often than every this many seconds.
MIN_RENEW_S = 20.0


class ReviewApp(App[None]):
    """Keyboard-only review of judge scores."""

    CSS_PATH = "app.tcss"
    TITLE = "rubricate"
    #: below 110 columns (a laptop over SSH) panels and cards stack instead of sitting side by side
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("question_mark,f1", "help", "help", id="app.help"),
        Binding("ctrl+q", "quit", "quit", id="app.quit", priority=True),
    ]

    def __init__(self, store: Store | None, session: Session, settings: TuiSettings | None = None,
                 db: str | None = None, first_page: Future[FirstPage] | None = None) -> None:
        super().__init__()
        palette.use_color(not self.no_color)  # (Textual has read NO_COLOR by now)
        #: with ``store`` None, the app opens ``db`` in a worker and paints the first page from
        #: ``reviewer.store.lite`` meanwhile (SQLAlchemy takes longer to load than a first frame may)
        self.gateway = Gateway(self.post_message, store, db)
        #: the queue's first page, being read (reviewer.tui.firstpage) while the app starts
        self.first_page = first_page
        #: set once the queue's first page is on screen: the store loads after that, not before
        self.first_page_shown = threading.Event()
        self.session = session
        self.settings = settings or TuiSettings()
        self.roles: set[str] = set()
        self.history: list[int] = []
        self.writes_done = 0
        self.write_errors: list[str] = []
        #: the next item, being claimed (or claimed) while the reviewer works on this one
        self._ahead: Future[Claimed] | None = None
        #: work the next frame must not share the CPU with, started once it is painted
        #: (:meth:`_behind_frame`): the items to exclude from a claim ahead, the progress re-read
        self._ahead_due: tuple[int, ...] | None = None
        self._progress_due: tuple[Future[None] | None] | None = None
        #: the queue's (total, done, left for this reviewer), read after each finished item
        self.progress: tuple[int, int, int] | None = None
        #: seconds spent on each item finished this session
        self.durations: list[float] = []
        self._shown_at: float | None = None
        self.collector = IdleCollector()

    def on_mount(self) -> None:
        self.set_interval(IDLE_S, self.collector.tick)
        if self.settings.keymap:
            self.set_keymap(self.settings.keymap)
        # leases run lease_minutes; renewed several times within that while the reviewer is on the item
        self.set_interval(max(MIN_RENEW_S, self.settings.lease_minutes * 60.0 / RENEWALS_PER_LEASE), self.renew_leases)
        self.push_screen(QueueScreen())
        if self.session.review_of is not None:  # (rubricate review --review-of: a lead's walk, over the queue)
            from reviewer.tui.screens.review_of import ReviewOfScreen

            self.push_screen(ReviewOfScreen(self.session.review_of))
        if self.gateway.opening:
            self._open_store()
        self._load_roles()
        self.load_progress()

    @work(thread=True, group="store")
    def _open_store(self) -> None:
        self.first_page_shown.wait(timeout=2)
        from reviewer.tui.screens import item  # noqa: F401  (loaded here, off the first frame)

        self.gateway.open(self.session.queue, self.session.rubric_ref, self._settle_blind)

    def _settle_blind(self, blind: bool) -> None:
        """A queue set blind is blind for everyone in it (run before any screen reads the store)."""
        if blind and not self.session.blind:
            self.session = replace(self.session, blind=True)

    def on_store_opened(self, message: StoreOpened) -> None:
        # What exists now lives as long as the app: keep it out of the collector's full scans.
        gc.freeze()

    def on_store_failed(self, message: StoreFailed) -> None:
        line = safe_text(message.line.strip().splitlines()[0], newlines=False)
        line.no_wrap, line.overflow = True, "ignore"  # one line, however narrow the terminal
        self.exit(message=line, return_code=message.code)

    @reads("the queue's progress", group="progress")
    def load_progress(self, after: Future[None] | None = None) -> None:
        """Read the queue's progress (once ``after``, the write that closed a lease, has landed)."""
        if after is not None:
            with contextlib.suppress(Exception):
                after.result()
        s = self.session
        found = self.gateway.read(lambda store: adapter.progress(store, s.queue, s.reviewer, s.rubric_ref, s.dataset))
        self.post_message(ProgressLoaded(found))

    def on_progress_loaded(self, message: ProgressLoaded) -> None:
        self.progress = message.found
        show = getattr(self.screen, "show_progress", None)  # the queue's and the item's headers
        if show is not None:
            show()

    def pace(self) -> Text:
        """Progress and pace for a header: done of total, left for you, this session's count and
        median time per item."""
        t = Text()
        if self.progress is not None:
            total, done, left = self.progress
            t.append(f"{done}/{total} done", style="bold")
            t.append(f" · {left} left for you", style="dim")
        n = len(self.durations)
        t.append(f"{' · ' if t else ''}session {n} item{'' if n == 1 else 's'}", style="dim")
        if self.durations:
            t.append(f" · median {statistics.median(self.durations):.0f}s/item", style="dim")
        return t

    @reads("your roles", group="roles")
    def _load_roles(self) -> None:
        reviewer = self.session.reviewer
        self.post_message(RolesLoaded(self.gateway.read(lambda store: adapter.roles(store, reviewer))))

    def on_roles_loaded(self, message: RolesLoaded) -> None:
        self.roles = message.roles

    # --- opening items ----------------------------------------------------------------------
    # The next item is claimed ahead, while the reviewer works on this one, so ``n`` shows it at
    # once; the lease it holds is given back when the reviewer leaves the queue or quits. The
    # claim goes through the writer, so it runs after the lease closes queued before it (a claim
    # that overtook them could take back an item the reviewer had just finished).
    def _claim(self, exclude: tuple[int, ...] = ()) -> Claimed:
        """Claim and load the session's next item (and its pair, for a pairwise rubric)."""
        s = self.session
        lease = self.settings.lease_minutes * 60
        state = _warmed(self.gateway.read(lambda store: adapter.claim_next(
            store, s.queue, s.reviewer, s.rubric_ref, s.dataset, lease_seconds=lease, blind=s.blind, exclude=exclude)))
        return state, self._pair_for(state, lease)

    def _pair_for(self, state: ItemState | None, lease: int | None) -> PairState | None:
        if state is None or state.group is None or not state.rubric.review.pairwise:
            return None
        s = self.session
        return self.gateway.read(lambda store: adapter.load_pair(store, state, s.reviewer, s.blind, lease))

    def _load(self, item_pk: int, claim: Claim | None = None) -> ItemState:
        """One item as the session sees it (``claim``: the lease it is held under)."""
        s = self.session
        return self.gateway.read(lambda store: adapter.load_item(store, item_pk, s.reviewer, s.blind, claim, s.queue))

    @reads("the next item", group="load")
    def open_next(self, after: Future[None] | None = None, ahead: Future[Claimed] | None = None) -> None:
        """Show the next item of the session's queue: the one claimed ahead when there is one
        still leased, else claim it once ``after`` (the write that closed the last lease, queued
        behind every score entered before it) has landed."""
        if ahead is not None:
            with contextlib.suppress(Exception):  # a failed claim ahead: claim again below
                usable = self._usable(ahead.result())
                if usable is not None:
                    state, pair = self._refreshed(*usable)
                    self.post_message(ItemLoaded(state, True, pair))
                    return
        if after is not None:
            with contextlib.suppress(Exception):  # a failed write was already reported
                after.result()
        claimed, pair = self._claim()
        self.post_message(ItemLoaded(claimed, True, pair))

    def _refreshed(self, state: ItemState, pair: PairState | None) -> tuple[ItemState, PairState | None]:
        """Re-read an item claimed a while ago (its scores may have changed since), keeping its
        lease; a pair's sides likewise."""
        fresh = _warmed(self._load(state.item_pk, state.claim))
        if pair is None:
            return fresh, None
        sides = [fresh if side.item_pk == state.item_pk else self._load(side.item_pk, side.claim)
                 for side in pair.sides]
        return fresh, replace(pair, sides=sides)

    def _usable(self, claimed: Claimed) -> tuple[ItemState, PairState | None] | None:
        """What was claimed ahead, if its lease still has time to run; else its leases go back."""
        state, pair = claimed
        if state is not None and _fresh(state):
            return state, pair
        self._give_back(state, pair)
        return None

    def _give_back(self, state: ItemState | None, pair: PairState | None) -> None:
        """Release the leases of an item claimed ahead and not shown."""
        for s in _items_of(state, pair):
            if s.claim is not None:
                self.gateway.close_claim(s.claim, "release")

    def _drop_ahead(self, wait: bool = False) -> None:
        """Give back what was claimed ahead (the reviewer is leaving the queue): now if it has
        arrived, else when it does (``wait``: block until then, as quitting may)."""
        ahead, self._ahead, self._ahead_due = self._ahead, None, None
        if ahead is None:
            return

        def give_back(f: Future[Claimed]) -> None:
            if f.exception() is None:
                self._give_back(*f.result())

        if wait:
            with contextlib.suppress(Exception):
                ahead.result(timeout=10)
        ahead.add_done_callback(give_back)  # runs at once when it is done already

    @reads("the item", group="load")
    def open_item(self, item_pk: int, remember: bool = True) -> None:
        """Show one item picked from the queue list."""
        state = _warmed(self._load(item_pk))
        self.post_message(ItemLoaded(state, remember, self._pair_for(state, None)))

    def on_item_loaded(self, message: ItemLoaded) -> None:
        self._show(message.state, message.remember, message.pair)

    def _show(self, state: ItemState | None, remember: bool = True, pair: PairState | None = None) -> None:
        from reviewer.tui.screens.item import ItemScreen
        from reviewer.tui.screens.pair import PairScreen

        on_item = isinstance(self.screen, ItemScreen | PairScreen)
        if state is None:
            self.notify("the queue is empty: nothing left for you here", title="done")
            while len(self.screen_stack) > 2:
                self.pop_screen()
            if isinstance(self.screen, ItemScreen | PairScreen):
                self.pop_screen()
            self._behind_frame()
            return
        if remember:
            self.history.append(state.item_pk)
        self._shown_at = time.monotonic()
        if state.claim is not None and self._ahead is None:
            # the whole group of a pair stays out: its other items are cycled through beside it
            group = tuple(pair.partners) if pair is not None else ()
            self._ahead_due = tuple(s.item_pk for s in _items_of(state, pair)) + group
        self.call_after_refresh(self._behind_frame)
        screen: ItemScreen | PairScreen
        if pair is not None:
            screen = PairScreen(pair)
        elif isinstance(self.screen, ItemScreen) and self.screen.show(state):
            return
        else:
            screen = ItemScreen(state)
        if on_item:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def _behind_frame(self) -> None:
        """Start what the item just shown needs but nobody waits for: the next item's claim and
        the queue's progress. Started beside the item's first frame, their store reads (pure
        Python, under the same interpreter lock) would take turns from it and slow it down."""
        due, self._ahead_due = self._ahead_due, None
        if due is not None and self._ahead is None:
            # through the writer: after the writes that closed the last leases, never before
            self._ahead = self.gateway.behind_writes(lambda: self._claim(due))
        progress, self._progress_due = self._progress_due, None
        if progress is not None:
            self.load_progress(progress[0])

    @work
    async def jump(self, *states: ItemState) -> None:
        """Ask for an item id and open that item (the items on screen are given back)."""
        from reviewer.tui.screens.jump import JumpDialog

        item_id = await self.push_screen_wait(JumpDialog())
        if item_id is not None:
            self._jump_to(item_id, states)

    @reads("the item asked for", group="load")
    def _jump_to(self, item_id: str, states: tuple[ItemState, ...], pk: int | None = None) -> None:
        """Open the item with this id (``pk``: the one picked among several sharing it)."""
        if pk is None:
            found = self.gateway.read(lambda store: adapter.find_items(store, item_id))
            if len(found) != 1:
                self.post_message(ItemsFound(item_id, found, states))
                return
            pk = found[0][0]
        for state in states:
            if state.claim is not None:
                self.gateway.close_claim(state.claim, "release")
        self.post_message(ItemLoaded(_warmed(self._load(pk)), True, None))

    def go_to(self, item_pk: int, *states: ItemState) -> None:
        """Open the item ``item_pk`` (picked from the history panel; the items on screen are
        given back, as for a jump)."""
        self._jump_to("", states, item_pk)

    def on_items_found(self, message: ItemsFound) -> None:
        if not message.found:
            self.notify(safe_line(f"no item {message.item_id!r}"), severity="warning", markup=False)
        else:
            self._choose(message.item_id, message.found, message.states)

    @work
    async def _choose(self, item_id: str, found: list[tuple[int, str, str]], states: tuple[ItemState, ...]) -> None:
        """Several items share the id: the person picks one by its dataset and rubric."""
        from reviewer.tui.screens.jump import ItemChoiceDialog

        pk = await self.push_screen_wait(ItemChoiceDialog(item_id, found))
        if pk is not None:
            self._jump_to(item_id, states, pk)

    @reads("the pair", group="load")
    def open_pair(self, state: ItemState) -> None:
        """Open ``state`` beside its group's other item, over its item screen."""
        s = self.session
        self.post_message(PairLoaded(state, self.gateway.read(
            lambda store: adapter.load_pair(store, state, s.reviewer, s.blind))))

    def on_pair_loaded(self, message: PairLoaded) -> None:
        from reviewer.tui.screens.pair import PairScreen

        state, pair = message.state, message.pair

        if pair is None:
            self.notify(safe_line(f"{state.item_id} has no other item in group {state.group!r}"), severity="warning",
                        markup=False)
            return
        self.push_screen(PairScreen(pair, over_item=True))

    def renew_leases(self) -> None:
        """Renew the leases of the items on screen and of the one claimed ahead (in the writer;
        a lease lost meanwhile is reported like any failed write)."""
        from reviewer.tui.screens.item import ItemScreen
        from reviewer.tui.screens.pair import PairScreen

        states: list[ItemState] = []
        for screen in self.screen_stack:
            if isinstance(screen, ItemScreen):
                states.append(screen.state)
            elif isinstance(screen, PairScreen):
                states += screen.pair.sides
        ahead = self._ahead
        if ahead is not None and ahead.done() and ahead.exception() is None:
            states += _items_of(*ahead.result())
        for s in {s.item_pk: s for s in states}.values():
            if s.claim is not None:
                self.gateway.renew_claim(s, self.settings.lease_minutes * 60)

    # --- what item screens ask for -----------------------------------------------------------
    def write_score(
        self, state: ItemState, d: DimState, value: float | None, *, kind: str, blind: bool,
        sample: str | None, reason: str | None = None, tags: tuple[str, ...] = (),
    ) -> int:
        """Hand one human score to the writer (it is in the store before the next one); its
        ticket, which a ``WriteFailed`` names if the store refuses it."""
        return self.gateway.write_score(state, d, self.session.reviewer, value, kind=kind, blind=blind,
                                        sample=sample, reason=reason, tags=tags).number

    def write_comment(self, state: ItemState, text: str) -> Ticket[int]:
        """Hand the reviewer's comment on the item to the writer (stored at once, in order)."""
        return self.gateway.add_comment(state, self.session.reviewer, text)

    def write_correction(self, state: ItemState, text: str) -> Ticket[int | None]:
        """Hand the reviewer's corrected answer of the item to the writer (stored at once, in order)."""
        return self.gateway.add_correction(state, self.session.reviewer, text)

    def write_reveal(self, *states: ItemState) -> None:
        """Hand the reviewer's reveal of the judge on these items to the writer: stored, so the
        judge stays shown (and later scores are not blind) when the item is opened again."""
        for state in states:
            self.gateway.add_reveal(state, self.session.reviewer)

    def advance(self, *states: ItemState, finished: bool, skip: bool = False) -> None:
        """Close the leases of the items on screen (complete, skip or release) and show the next
        item: the one claimed ahead, re-read, when it has arrived."""
        closed: Future[None] | None = None
        how: Close = "skip" if skip else ("complete" if finished else "release")
        for state in states:
            if state.claim is not None:
                closed = self.gateway.close_claim(state.claim, how).future
        if finished and self._shown_at is not None:
            self.durations.append(time.monotonic() - self._shown_at)
        self._progress_due = (closed,)  # re-read once the next item is painted
        ahead, self._ahead, self._ahead_due = self._ahead, None, None
        # what was claimed ahead is re-read (in the worker) before it is shown
        self.open_next(closed, ahead)

    def go_back(self, state: ItemState) -> None:
        """Reopen the item before this one."""
        if state.item_pk in self.history:
            idx = self.history.index(state.item_pk)
        else:
            idx = len(self.history)
        if idx == 0:
            self.notify("this is the first item of the session", severity="warning")
            return
        if state.claim is not None:
            self.gateway.close_claim(state.claim, "release")
        self.open_item(self.history[idx - 1], remember=False)

    def leave_item(self, *states: ItemState) -> None:
        """Back to the queue list, releasing the leases (the one claimed ahead too)."""
        for state in states:
            if state.claim is not None:
                self.gateway.close_claim(state.claim, "release")
        self._drop_ahead()
        self.pop_screen()

    def adjudicate(self, item_pk: int, dimension: str, value: float, reason: str) -> None:
        """A lead's adjudicated score with its reason, written in order like every other score."""
        self.gateway.adjudicate(item_pk, dimension, self.session.reviewer, value, reason)

    def choose_in_pair(self, pair: PairState, choice: int, reason: str | None = None,
                       tags: tuple[str, ...] = ()) -> None:
        """The reviewer's pick between the two sides on screen (``-1``: a tie), with a reason and
        quick tags when given, written in order."""
        a, b = (side.item_pk for side in pair.sides)
        winner = None if choice < 0 else pair.sides[choice].item_pk
        self.gateway.choose_in_pair(pair.group, a, b, winner, self.session.reviewer, reason, tags)

    @reads("the next partner", group="load")
    def cycle_partner(self, pair: PairState, step: int, over_item: bool) -> None:
        """Show the pair's anchor beside the next (``step`` 1) or previous partner of its group.
        When the anchor is leased the new partner is leased first, then the old partner's lease
        is closed (complete where the reviewer scored on it, else released)."""
        s = self.session
        lease = self.settings.lease_minutes * 60 if pair.anchor.claim is not None else None
        found = self.gateway.read(lambda store: adapter.next_partner(store, pair, s.reviewer, s.blind, step, lease))
        old = pair.partner
        if found is not None and old.claim is not None:
            self.gateway.close_claim(old.claim, "complete" if old.scored_count() else "release")
        self.post_message(PartnerLoaded(pair, found, over_item))

    def on_partner_loaded(self, message: PartnerLoaded) -> None:
        from reviewer.tui.screens.pair import PairScreen

        pair, found, over_item = message.pair, message.found, message.over_item

        if found is None:
            self.notify(safe_line(f"every other item of group {pair.group} is held by another reviewer"),
                        severity="warning", markup=False)
            return
        if isinstance(self.screen, PairScreen) and self.screen.pair is pair:
            self.switch_screen(PairScreen(found, over_item=over_item))
        elif found.partner.claim is not None:  # the reviewer left meanwhile: give the new lease back
            self.gateway.close_claim(found.partner.claim, "release")

    def flag_item(self, state: ItemState, reason: str) -> Ticket[int]:
        """Send the item to the safety queue with the reviewer's reason; the ticket's future gives
        the flag's id (for an undo)."""
        self.notify(safe_line(f"{state.item_id} sent to the safety queue"), markup=False)
        return self.gateway.flag_item(state, self.session.reviewer, reason)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key | events.MouseDown) and not event.is_forwarded:
            self.collector.touched()  # a full collection waits for the next pause (idlegc)
        await super().on_event(event)

    def on_written(self, message: Written) -> None:
        self.writes_done += 1
        for screen in self.screen_stack:
            if isinstance(screen, AnswersWrites):
                screen.written(message)

    def on_write_failed(self, message: WriteFailed) -> None:
        """Every screen that keeps the write rolls it back; then one line says both."""
        for screen in self.screen_stack:
            if isinstance(screen, AnswersWrites):
                screen.write_failed(message)
        self.write_errors.append(message.error)
        undone = f" — undone on screen: {'; '.join(message.undone)}" if message.undone else ""
        self.notify(safe_line(f"could not save {message.label}: {message.error}{undone}"), severity="error",
                    timeout=10, markup=False)

    def on_read_failed(self, message: ReadFailed) -> None:
        """A failed read is a line on the screen; the app keeps running."""
        self.notify(safe_line(f"could not read {message.what}: {message.error}"), severity="error",
                    timeout=10, markup=False)

    def get_key_display(self, binding: Binding) -> str:
        """As Textual shows a key, except the one footer entry of the digit keys (``0-9``) once
        the keymap has moved any of them: then the key its own binding answers to."""
        if binding.key_display == SCORE_KEYS and any(i.rpartition(".")[2].startswith("score_")
                                                     for i in self.settings.keymap):
            return super().get_key_display(replace(binding, key_display=None))
        return super().get_key_display(binding)

    def action_help(self) -> None:
        """Show every key of the current screen with its id."""
        self.push_screen(HelpScreen(self.screen))

    async def action_quit(self) -> None:
        """Quit after every queued write has landed (the lease claimed ahead given back)."""
        self._drop_ahead(wait=True)
        self.gateway.drain()
        self.exit()


def _items_of(state: ItemState | None, pair: PairState | None) -> list[ItemState]:
    """The items one claim put on screen: the pair's sides, or the item alone."""
    return list(pair.sides) if pair is not None else [state] if state is not None else []


def _warmed(state: _S) -> _S:
    """``state`` with its output and chat rendered as markdown, and its output panel's text (both
    modes) wrapped at the panel's widths, into their caches — in the worker that loaded it, so
    the UI thread finds them ready (a 50 KB output takes tens of milliseconds for each)."""
    if isinstance(state, ItemState):
        from reviewer.tui.screens.scoring import output_text
        from reviewer.tui.widgets import markdown, textview

        markdown.warm(state.output, *(str(m.get("content", "")) for m in state.conversation))
        if state.output or not state.conversation:  # (a chat's heading makes a new text each time)
            evidence = [q for d in state.dims if d.judge_visible for q in d.evidence]
            textview.prewrap(*(output_text(state, evidence, raw) for raw in (False, True)))
    return state


def _fresh(state: ItemState, margin_s: float = 60) -> bool:
    """Whether the lease on an item claimed ahead still has ``margin_s`` to run."""
    until = state.claim.until
    return bool((until - datetime.now(until.tzinfo)).total_seconds() > margin_s)


def make_app(store: Store | None, reviewer: str, queue: str = "triage", rubric_ref: str | None = None,
             dataset: str | None = None, blind: bool = False,
             settings: TuiSettings | None = None, db: str | None = None,
             first_page: Future[FirstPage] | None = None, review_of: ReviewOf | None = None) -> ReviewApp:
    """Build the app on an open ``store``, or (``store`` None) on ``db``, which it opens in a
    worker once running; ``first_page`` is :func:`reviewer.tui.firstpage.start`'s future;
    ``review_of``: open on a lead's walk of that person's scores."""
    if settings is not None and settings.keymap:
        from reviewer.tui.config import config_path
        from reviewer.tui.keymap import check_keymap

        check_keymap(settings.keymap, config_path(), ReviewApp)
    return ReviewApp(store, Session(reviewer, queue, rubric_ref, dataset, blind, review_of), settings, db, first_page)


def _hosts(app: ReviewApp) -> ReviewHost:
    """Never called: mypy checks here that the app is what its screens take it for."""
    return app


__all__ = ["ReviewApp", "Session", "make_app"]
