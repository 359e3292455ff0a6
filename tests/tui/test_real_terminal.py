"""Once in a real terminal: rubricate review under tmux, keys sent, the screen read back."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from reviewer.services.importing import import_file
from reviewer.store import open_store

pytestmark = [pytest.mark.tmux, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


def wait_for(session: str, text: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-t", session)
        if text in screen:
            return screen
        time.sleep(0.2)
    raise AssertionError(f"{text!r} never appeared; the screen was:\n{screen}")


def test_review_in_tmux(demo_db: Path, tmp_path: Path) -> None:
    session = f"rubricate-{uuid.uuid4().hex[:8]}"
    exe = Path(sys.executable).with_name("rubricate")
    cmd = (f"env RUBRICATE_CONFIG={tmp_path / 'none.yaml'} TERM=xterm-256color "
           f"{exe} review --db {demo_db} --reviewer termi")
    tmux("new-session", "-d", "-s", session, "-x", "130", "-y", "40", cmd)
    try:
        screen = wait_for(session, "triage")
        assert "reviewer termi" in screen and "gq-001" in screen  # the queue, paged from the store
        tmux("send-keys", "-t", session, "g")
        screen = wait_for(session, "scored 0/5")
        assert "Accuracy" in screen and "judge" in screen
        tmux("send-keys", "-t", session, "7")
        screen = wait_for(session, "scored 1/5")
        tmux("send-keys", "-t", session, "C-q")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and subprocess.run(
                ["tmux", "has-session", "-t", session], capture_output=True).returncode == 0:
            time.sleep(0.2)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    store = open_store(str(demo_db))
    rows = [h for r in store.queue.queue_page("triage", limit=500) for h in store.scores.human_rows(r.item_pk)
            if h.reviewer == "termi"]
    assert [(h.score, h.kind) for h in rows] == [(7.0, "score")]  # the keypress landed in the store


def test_hostile_output_in_tmux(tmp_path: Path) -> None:
    """An item whose output, input and rationale set the terminal title (OSC 0), clear the screen
    and colour the text: after opening it the pane title is unchanged, the screen still shows the
    item, and the escapes are on screen as placeholders (before the safe-text guard, the title
    became "pwned" and the screen was wiped)."""
    from tests.hostile.harness import hostile_items_file

    db = tmp_path / "hostile.db"
    import_file(open_store(str(db)), hostile_items_file(tmp_path / "h.jsonl"), "general-quality@1.0.0")
    session = f"rubricate-{uuid.uuid4().hex[:8]}"
    exe = Path(sys.executable).with_name("rubricate")
    cmd = (f"env RUBRICATE_CONFIG={tmp_path / 'none.yaml'} TERM=xterm-256color "
           f"{exe} review --db {db} --reviewer termi")
    tmux("new-session", "-d", "-s", session, "-x", "160", "-y", "45", cmd)
    try:
        screen = wait_for(session, "triage")
        title_before = tmux("display-message", "-p", "-t", session, "#{pane_title}").strip()
        tmux("send-keys", "-t", session, "g")
        screen = wait_for(session, "scored 0/5")
        time.sleep(0.5)  # let every panel draw
        screen = tmux("capture-pane", "-p", "-t", session)
        title_after = tmux("display-message", "-p", "-t", session, "#{pane_title}").strip()
        assert "pwned" not in title_after and title_after == title_before
        assert "␛]0;pwned␇" in screen  # the escape shown, not run
        assert "h-" in screen and "Accuracy" in screen  # the item is still on screen (not wiped)
        tmux("send-keys", "-t", session, "C-q")
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def _run(session: str, cmd: str) -> None:
    tmux("new-session", "-d", "-s", session, "-x", "130", "-y", "40", cmd)


def _quit(session: str) -> None:
    tmux("send-keys", "-t", session, "C-q")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and subprocess.run(
            ["tmux", "has-session", "-t", session], capture_output=True).returncode == 0:
        time.sleep(0.2)


def test_safety_decision_and_blind_reveal_in_tmux(demo_db: Path, tmp_path: Path) -> None:
    session = f"rubricate-{uuid.uuid4().hex[:8]}"
    exe = Path(sys.executable).with_name("rubricate")
    env = f"env RUBRICATE_CONFIG={tmp_path / 'none.yaml'} TERM=xterm-256color"
    try:
        # a safety reviewer escalates the payment card: the cursor stays on it, the screen says so
        _run(session, f"{env} {exe} review --db {demo_db} --reviewer tess")
        wait_for(session, "triage")
        tmux("send-keys", "-t", session, "S")
        wait_for(session, "payment_card")
        tmux("send-keys", "-t", session, "Down", "Down", "e")
        wait_for(session, "why? (required)")
        tmux("send-keys", "-t", session, "-l", "looks like a real card")
        tmux("send-keys", "-t", session, "Enter")
        screen = wait_for(session, "the cursor stays on it")
        assert "rag-012" in screen.split("the cursor stays on it")[0].splitlines()[-1]
        assert "escalated" in screen and "0 of 1 login" in screen
        _quit(session)
        # blind: no judge anywhere until the reviewer scores; the reveal says what changed
        _run(session, f"{env} {exe} review --db {demo_db} --reviewer blindy --blind")
        screen = wait_for(session, "triage")
        assert "judge" not in screen.split("\n", 2)[1]  # the queue list's columns: no judge, band, pass
        tmux("send-keys", "-t", session, "g")
        screen = wait_for(session, "judge hidden until you have scored every dimension")
        assert not re.search(r"judge \d", screen) and " fail" not in screen  # no judge figure, no verdict
        tmux("send-keys", "-t", session, "4")
        tmux("send-keys", "-t", session, "v")
        screen = wait_for(session, "revealed:")
        assert "you 4 judge" in screen
        _quit(session)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
    store = open_store(str(demo_db))
    flag = next(f for f in store.safety.open_flags() if f.item_id == "rag-012")
    assert [(who, what) for who, what, _ in flag.decisions] == [("tess", "escalate")]
