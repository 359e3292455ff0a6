"""The safety screen: flagged items with the gate, the detector and the matched span.

Under the list, the highlighted flag's whole content under decision, scrollable (``space`` and
``b`` page it): a conversation as the chat, every message as written; an output in full, the
matched span marked. ``c`` clears (a false positive), ``e`` escalates, ``x`` confirms (blocked);
each needs a reason. Anyone can look; only a reviewer with the ``safety`` role can decide. States
and sign-offs follow :mod:`reviewer.domain.safety` (open → escalated → cleared/confirmed;
sign-offs are distinct people, and a flag cleared only by whoever escalated it says so).
"""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Static

from reviewer.domain.safety import WAITING
from reviewer.safetext import safe, safe_line, safe_text
from reviewer.tui import adapter, palette
from reviewer.tui.gateway import reads
from reviewer.tui.host import AnswersWrites, ReviewHost, host_of
from reviewer.tui.messages import FlagsLoaded, WriteFailed, Written
from reviewer.tui.screens.confirm import ReasonRequired
from reviewer.tui.screens.footer import AppKeysFirst, footer
from reviewer.tui.widgets.chat import chat_text
from reviewer.tui.widgets.textview import TextView

COLUMNS = ("item", "gate", "detector", "matched", "status", "sign-offs")
DECISIONS = {"clear": "clear (false positive)", "escalate": "escalate", "confirm": "confirm (blocked)"}


class DecisionDialog(ReasonRequired):
    """Ask for the reason behind a safety decision; escape cancels."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="decision.cancel")]

    def __init__(self, decision: str, item_id: str) -> None:
        super().__init__(Text.assemble(f"{DECISIONS[decision]} — ", safe_text(item_id, "bold", newlines=False),
                                       ": why? (required)"))
        self.decision, self.item_id = decision, item_id


def content_text(f: adapter.FlagLine) -> Text:
    """The whole content under decision, as written: a conversation as the chat (every message;
    a gate's match is marked wherever it occurs, since a gate scans each assistant message), else
    the output with the matched span marked."""
    if f.conversation:
        text = chat_text(list(f.conversation), None, raw=True)
        if f.output:
            text.append("\n\noutput\n", style="bold")
            text.append(safe(f.output))
        if f.matched:
            text.highlight_words([safe(f.matched)], palette.alarm_text())
        return text
    out = f.output
    start, end = max(0, f.start), min(len(out), f.end)
    if f.matched and out[start:end] == f.matched:
        return Text.assemble(safe(out[:start]), (safe(out[start:end]), palette.alarm_text()), safe(out[end:]))
    text = safe_text(out)
    if f.matched:  # a span that is not where the gate said: marked wherever it is
        text.highlight_words([safe(f.matched)], palette.alarm_text())
    return text


class SafetyScreen(AppKeysFirst, AnswersWrites):
    """Flags waiting for a decision, one row each. After a decision the cursor stays on the flag
    decided (still waiting: more sign-offs needed) or moves to the next one, and says so."""

    BINDINGS = [
        Binding("c", "decide('clear')", "clear", id="safety.clear"),
        Binding("e", "decide('escalate')", "escalate", id="safety.escalate"),
        Binding("x", "decide('confirm')", "confirm", id="safety.confirm"),
        Binding("o", "open", "open item", id="safety.open"),
        Binding("space", "page(1)", "page down", id="safety.page_down"),
        Binding("b", "page(-1)", "page up", id="safety.page_up"),
        Binding("escape", "back", "back", id="safety.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.flags: list[adapter.FlagLine] = []
        #: after a decision: the flag to keep the cursor on, and the row it was on
        self._keep: tuple[int, int] | None = None
        #: decisions handed to the writer, by ticket: the flag and the row it was on
        self._deciding: dict[int, tuple[adapter.FlagLine, int]] = {}
        #: what the last decision did, said above the detail
        self.said: Text = Text()

    @property
    def rapp(self) -> ReviewHost:
        """The app, as a screen may use it (:mod:`reviewer.tui.host`)."""
        return host_of(self.app)

    def compose(self) -> ComposeResult:
        yield Static(id="safety-title")
        yield DataTable(id="safety-table", cursor_type="row")
        yield Static(id="safety-said")
        yield Static(id="safety-detail")
        with VerticalScroll(id="safety-content"):
            yield TextView(Text(), id="safety-text")
        yield footer()

    def on_mount(self) -> None:
        self.load()

    @reads("the safety queue", group="safety")
    def load(self) -> None:
        """Fetch the waiting flags."""
        rubric_ref = self.rapp.session.rubric_ref
        self.post_message(FlagsLoaded(self.rapp.gateway.read(lambda store: adapter.open_flags(store, rubric_ref))))

    def on_flags_loaded(self, message: FlagsLoaded) -> None:
        flags = message.flags
        self.flags = flags
        table = self.query_one(DataTable)
        table.clear(columns=True)  # columns sized afresh: a status may have grown ("escalated")
        cells = [[safe_text(v, newlines=False) for v in (f.item_id, f.gate, f.detector,
                                                         f.matched[:40].replace("\n", " "), f.status, f.signoffs)]
                 for f in flags]
        # widths from the content itself, so a row added before the first layout is never cut short
        for i, label in enumerate(COLUMNS):
            table.add_column(label, width=max([len(label), *(row[i].cell_len for row in cells)]))
        for f, row in zip(flags, cells, strict=True):
            table.add_row(*row, key=str(f.flag_id))
        if self._keep is not None and flags:
            flag_id, kept_row = self._keep
            same = next((i for i, f in enumerate(flags) if f.flag_id == flag_id), None)
            table.move_cursor(row=same if same is not None else min(kept_row, len(flags) - 1), animate=False)
        self._keep = None
        can = "safety" in self.rapp.roles
        title = Text(" safety ", style="bold reverse")
        title.append(f"  {len(flags)} waiting  ", style="dim")
        title.append("c clear · e escalate · x confirm · o open" if can else
                     "you can see flags; deciding needs the safety role",
                     style="dim" if can else "yellow")
        self.query_one("#safety-title", Static).update(title)
        self.query_one("#safety-said", Static).update(self.said)
        self._detail()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail()

    def _current(self) -> adapter.FlagLine | None:
        table = self.query_one(DataTable)
        if not self.flags or table.cursor_row is None or table.cursor_row >= len(self.flags):
            return None
        return self.flags[table.cursor_row]

    def _detail(self) -> None:
        f = self._current()
        detail = self.query_one("#safety-detail", Static)
        content = self.query_one("#safety-content", VerticalScroll)
        content.display = f is not None
        if f is None:
            detail.update("no flags waiting")
            return
        text = Text.assemble((safe_line(f.item_id), "bold"), " · ", safe_line(f.gate), " · ", safe_line(f.detector),
                             "   ", (safe_line(f.status), palette.alarm() if f.status == "escalated" else "bold"),
                             ("  sign-offs ", "dim"), (safe_line(f.signoffs), "bold"))
        if f.why_waiting:
            text.append("\nstill waiting: ", style="dim")
            text.append(safe(f.why_waiting), style="yellow")
        if f.context:
            text.append("\nwhy flagged: ", style="dim")
            text.append(safe(f.context))
        for who, what, why in f.decisions:
            text.append(f"\n  {safe_line(what)} ", style="bold")
            text.append(safe_line(who), style="cyan")
            text.append(": ")
            text.append(safe(why))
        detail.update(text)
        content.border_title = ("conversation, as written" if f.conversation else "output, as written") \
            + " (space/b: page)"
        self.query_one("#safety-text", TextView).update(content_text(f))
        content.scroll_home(animate=False)

    def action_page(self, step: int) -> None:
        """Page the content under decision down (1) or up (-1)."""
        content = self.query_one("#safety-content", VerticalScroll)
        if step > 0:
            content.scroll_page_down(animate=False)
        else:
            content.scroll_page_up(animate=False)

    @work
    async def action_decide(self, decision: str) -> None:
        """Record a decision with its reason (role safety only)."""
        f = self._current()
        if f is None:
            return
        if "safety" not in self.rapp.roles:
            self.notify("only a safety reviewer can decide a flag "
                        "(rubricate reviewer add NAME --role safety)", severity="error")
            return
        reason = await self.app.push_screen_wait(DecisionDialog(decision, f.item_id))
        if reason is None:
            return
        row = self.query_one(DataTable).cursor_row
        ticket = self.rapp.gateway.decide_flag(f.flag_id, self.rapp.session.reviewer, decision, reason)
        self._deciding[ticket.number] = (f, row)

    def write_failed(self, message: WriteFailed) -> None:
        """A decision refused: said under the list (the flag stays as it was)."""
        if self._deciding.pop(message.ticket, None) is not None:
            self.said = Text.assemble(("not recorded: ", palette.alarm()), safe(message.error))
            self.query_one("#safety-said", Static).update(self.said)
            message.undone.append("the flag stays as it was")

    def written(self, message: Written) -> None:
        """Say what the decision did, keep the cursor on the flag (or the next one), reload."""
        decided = self._deciding.pop(message.ticket, None)
        if decided is None:
            return
        (f, row), status = decided, str(message.result)
        said = Text.assemble((safe_line(f.item_id), "bold"), safe_line(f": {status}"))
        if status in WAITING:
            said.append(" — still waiting for a decision; the cursor stays on it", style="yellow")
        else:
            said.append(" — done; the cursor moved to the next flag", style="green")
        self.said = said
        self._keep = (f.flag_id, row)
        self.load()

    def action_open(self) -> None:
        """Open the flagged item."""
        f = self._current()
        if f is not None:
            self.rapp.open_item(f.item_pk)

    def action_back(self) -> None:
        """Back to the queue."""
        self.app.pop_screen()
