"""Hostile TUI settings files and leases: one ``FILE:LINE: setting: what; what to do`` line per
fault, all at once, never a traceback and never a value cast into something else.

A case is (id, what it proves, the file, the expected lines (line number, fragment), how the
unguarded reader behaved).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from reviewer.errors import UserError
from reviewer.services.importing import import_file
from reviewer.tui.config import load_settings
from tests.cli import run_cli
from tests.hostile.harness import unguarded_raises, unguarded_true

CASES: list[tuple[str, str, str, list[tuple[int, str]], Callable[[], None]]] = [
    ("lease-word", "lease_minutes: abc is one line (int('abc') raised ValueError)",
     "lease_minutes: abc\n", [(1, "lease_minutes: Input should be a valid integer")],
     unguarded_raises(ValueError, lambda: int("abc"))),
    ("lease-negative", "a negative lease is refused (it handed the item to the next reviewer at once)",
     "lease_minutes: -5\n", [(1, "greater than or equal to 1")], unguarded_true(int(yaml.safe_load("lease_minutes: -5")["lease_minutes"]) < 0)),
    ("lease-zero", "a zero lease is refused", "lease_minutes: 0\n", [(1, "greater than or equal to 1")],
     unguarded_true(True)),
    ("lease-huge", "a lease of a year is refused", "lease_minutes: 525600\n", [(1, "less than or equal to 1440")],
     unguarded_true(True)),
    ("lease-quoted", "lease_minutes: '15' is refused, not cast", "lease_minutes: '15'\n",
     [(1, "valid integer")], unguarded_true(int("15") == 15)),
    ("lease-fraction", "lease_minutes: 2.5 is refused, not cut to 2", "lease_minutes: 2.5\n",
     [(1, "valid integer")], unguarded_true(int(2.5) == 2)),
    ("lease-bool", "lease_minutes: true is refused (true is 1 to int())", "lease_minutes: true\n",
     [(1, "valid integer")], unguarded_true(int(True) == 1)),
    ("page-size-list", "page_size: [1] is refused", "page_size: [1]\n", [(1, "page_size: Input should be")],
     unguarded_raises(TypeError, lambda: int([1]))),  # type: ignore[call-overload]  # on purpose: the unguarded call
    ("keymap-list", "a keymap entry that is a list is refused, at its own line",
     "keymap:\n  item.agree: enter\n  item.next: [n]\n", [(3, "keymap.item.next")], unguarded_true(True)),
    ("keymap-not-mapping", "a keymap that is text is refused", "keymap: enter\n", [(1, "keymap")], unguarded_true(True)),
    ("unknown-setting", "an unknown setting is refused by name", "lease_minute: 15\n",
     [(1, "unknown setting 'lease_minute'")], unguarded_true(True)),
    ("duplicate-setting", "a setting given twice is refused (plain YAML kept the last)",
     "lease_minutes: 15\nlease_minutes: 1\n", [(2, "lease_minutes: set twice (first on line 1)")],
     unguarded_true(yaml.safe_load("lease_minutes: 15\nlease_minutes: 1\n")["lease_minutes"] == 1)),
    ("all-at-once", "every fault is reported, one line each",
     "lease_minutes: abc\npage_size: -3\nbogus: 1\n",
     [(1, "lease_minutes"), (2, "page_size"), (3, "unknown setting 'bogus'")], unguarded_true(True)),
    ("not-yaml", "a file that is not YAML is one line", "lease_minutes: [\n", [(2, "not valid YAML")], unguarded_true(True)),
    ("tagged", "an explicit python tag is one line", "lease_minutes: !!python/object:os.system x\n",
     [(1, "not valid YAML")], unguarded_raises(yaml.YAMLError, lambda: yaml.safe_load("a: !!python/object:os.system x"))),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hostile_settings(case: tuple[str, str, str, list[tuple[int, str]], Callable[[], None]],
                          tmp_path: Path) -> None:
    _, proves, text, expected, unguarded = case
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(UserError) as exc:
        load_settings(path)
    lines = str(exc.value).splitlines()
    assert len(lines) == len(expected), (proves, lines)
    for got, (n, fragment) in zip(lines, expected, strict=True):
        assert got.startswith(f"{path}:{n}: ") and fragment in got, (proves, got)
    unguarded()


def test_good_settings_load(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("lease_minutes: 30\npage_size: 100\nkeymap:\n  item.agree: enter,a\n")
    s = load_settings(path)
    assert (s.lease_minutes, s.page_size, s.keymap) == (30, 100, {"item.agree": "enter,a"})


def test_review_prints_each_fault_on_its_own_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the CLI: exit 1, each fault its own ``error:`` line, no traceback."""
    path = tmp_path / "config.yaml"
    path.write_text("lease_minutes: abc\npage_size: -3\n")
    monkeypatch.setenv("RUBRICATE_CONFIG", str(path))
    code, _, err = run_cli(["review", "--db", str(tmp_path / "db.sqlite")], capsys)
    lines = err.strip().splitlines()
    assert code == 1 and "Traceback" not in err
    assert len(lines) == 2 and all(ln.startswith(f"error: {path}:") for ln in lines), lines


@pytest.mark.parametrize("seconds", [0, -60, 10**9, 1.5, True])
def test_the_store_refuses_a_lease_out_of_range(seconds: Any, tmp_path: Path) -> None:
    """Whatever calls the store, a lease is 1 s to 1 day (a negative one freed the item at once)."""
    from reviewer.store import open_store

    store = open_store(str(tmp_path / "db.sqlite"))
    src = tmp_path / "one.jsonl"
    src.write_text('{"id": "a", "output": "x"}\n')
    import_file(store, src, "general-quality@1.0.0")
    with pytest.raises(UserError, match="give 1 second to 1 day"):
        store.queue.claim_next("triage", "ana", lease_seconds=seconds)
    assert store.queue.claim_next("triage", "ana", lease_seconds=60) is not None
