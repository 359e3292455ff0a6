"""The TUI's settings: one typed model, read from YAML in the user config directory.

``RUBRICATE_CONFIG`` names another file (tests always set it). Example file::

    lease_minutes: 15
    keymap:            # binding id -> keys (comma-separated), as Textual's App.set_keymap takes
      item.agree: enter,a
      item.next: n,right_square_bracket
"""

from __future__ import annotations

import os
import string
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from textual.keys import Keys, _character_to_key

from reviewer.errors import UserError
from reviewer.safetext import safe_line

MAX_CONFIG_BYTES = 65_536
#: what may stand before a key name, joined by ``+`` (``ctrl+s``, ``ctrl+shift+up``)
MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")


@dataclass
class TuiSettings:
    """Settings a reviewer may change."""

    #: Minutes a claimed item stays leased to the reviewer before it returns to the queue.
    lease_minutes: int = 15
    #: Rows fetched from the store per queue page (the widget never holds more).
    page_size: int = 200
    #: Binding id → keys, applied with ``App.set_keymap``.
    keymap: dict[str, str] = field(default_factory=dict)


def config_path() -> Path:
    """Where the settings file lives: ``$RUBRICATE_CONFIG`` or the user config directory."""
    env = os.environ.get("RUBRICATE_CONFIG")
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("rubricate")) / "config.yaml"


class _SettingsFile(BaseModel):
    """The file's schema: strict types (``lease_minutes: abc`` or ``"15"`` is refused, not cast)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    lease_minutes: int = Field(15, ge=1, le=24 * 60)
    page_size: int = Field(200, ge=10, le=5000)
    keymap: dict[str, str] = Field(default_factory=dict)


_HINTS = {
    "lease_minutes": "give whole minutes from 1 to 1440, e.g. lease_minutes: 15",
    "page_size": "give a whole number of rows from 10 to 5000, e.g. page_size: 200",
    "keymap": "map binding ids to key strings, e.g. item.agree: enter,a",
}


def load_settings(path: Path | None = None) -> TuiSettings:
    """Read the settings file; a missing file means defaults, a broken one is one clear line per
    fault (``FILE:LINE: setting: what is wrong; what to do``), all of them at once."""
    path = path or config_path()
    if not path.exists():
        return TuiSettings()
    from reviewer.faults import regular_file

    regular_file(path)  # a FIFO or device would block or never end
    import yaml  # only when a config file exists

    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise UserError(f"{path}: a settings file must be under 64 kB; this one is not")
        text = raw.decode("utf-8")
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text) or {}
    except UnicodeDecodeError:
        raise UserError(f"{path}: not valid UTF-8; save the file as UTF-8") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot be read ({exc.strerror or exc}); check the file") from None
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UserError(f"{path}{line}: not valid YAML; fix the file or remove it") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}:1: expected a mapping of settings; see `rubricate review --help`")
    lines = _key_lines(node)
    dups = [f"{path}:{line}: {key}: set twice (first on line {lines[key]}); keep one"
            for key, line in _duplicates(node)]
    if dups:
        raise UserError("\n".join(dups))
    try:
        checked = _SettingsFile.model_validate(data)
    except ValidationError as exc:
        raise UserError("\n".join(_fault_line(path, lines, e) for e in exc.errors())) from None
    bad_keys = [f"{path}:{lines.get(f'keymap.{bid}', lines.get('keymap', 1))}: keymap.{safe_line(bid)}: {problem}"
                for bid, keys in checked.keymap.items() if (problem := key_problem(keys)) is not None]
    if bad_keys:
        raise UserError("\n".join(bad_keys))
    # Textual matches a keymap's keys as written: " a" would answer to nothing
    keymap = {bid: ",".join(k.strip() for k in keys.split(",")) for bid, keys in checked.keymap.items()}
    return TuiSettings(lease_minutes=checked.lease_minutes, page_size=checked.page_size, keymap=keymap)


@cache
def _key_names() -> frozenset[str]:
    """Every key name a terminal key press arrives as (without modifiers): the named keys
    (``enter``, ``f2``, ``up``) and the names of printable characters (``question_mark``)."""
    named = {k.value for k in Keys if "+" not in k.value and not k.value.startswith("<")}
    return frozenset(named | {_character_to_key(c) for c in string.printable if c.isprintable()})


def key_problem(keys: str) -> str | None:
    """What is wrong with a keymap value (comma-separated keys), or None: a key must be a name
    a key press arrives as, else the binding would answer to nothing."""
    parts = [k.strip() for k in keys.split(",")]
    if not any(parts):
        return "no key given; give at least one key, e.g. enter,a"
    for key in parts:
        if not key:
            return f"{keys!r} has an empty key between commas; remove the extra comma"
        *mods, base = key.split("+")
        bad = next((m for m in mods if m not in MODIFIERS), None)
        if bad is not None:
            return (f"{key!r} is not a key: {bad!r} is not a modifier; "
                    f"use {', '.join(MODIFIERS)} before +, e.g. ctrl+s")
        if not base:
            return f"{key!r} names no key after its +; write the key's name there (plus for +), e.g. ctrl+s"
        if len(base) == 1 and base.isprintable() and not base.isspace():
            name = _character_to_key(base)
            if name != base:
                return f"{key!r} is not a key name; write {key[:-1]}{name} (the name of {base!r})"
            continue
        if base not in _key_names():
            return (f"{key!r} is not a key name; give a character (a, A, 7) or a key's name "
                    "(enter, escape, tab, space, up, f2, question_mark), e.g. item.agree: enter,a")
    return None


def _key_lines(node: Any) -> dict[str, int]:
    """The line of each top-level key (and of each keymap entry, as ``keymap.ID``)."""
    out: dict[str, int] = {}
    if not isinstance(node, yaml_nodes().MappingNode):
        return out
    for key, value in node.value:
        name = str(key.value)
        out.setdefault(name, key.start_mark.line + 1)
        if name == "keymap" and isinstance(value, yaml_nodes().MappingNode):
            for k, _ in value.value:
                out.setdefault(f"keymap.{k.value}", k.start_mark.line + 1)
    return out


def _duplicates(node: Any) -> list[tuple[str, int]]:
    """Top-level keys given twice (plain YAML silently keeps the last)."""
    seen: set[str] = set()
    out = []
    if isinstance(node, yaml_nodes().MappingNode):
        for key, _ in node.value:
            name = str(key.value)
            if name in seen:
                out.append((name, key.start_mark.line + 1))
            seen.add(name)
    return out


def yaml_nodes() -> Any:
    import yaml.nodes

    return yaml.nodes


def _fault_line(path: Path, lines: dict[str, int], error: Any) -> str:
    loc = [str(p) for p in error.get("loc", ())]
    key = ".".join(loc) or "settings"
    line = lines.get(key) or (lines.get(loc[0]) if loc else None)
    where = f"{path}:{line}" if line else str(path)
    if error.get("type") == "extra_forbidden":
        return f"{where}: unknown setting {key!r}; known: {', '.join(sorted(_HINTS))}"
    hint = _HINTS.get(loc[0] if loc else "", "see `rubricate review --help`")
    value = error.get("input")
    shown = repr(value)[:40] if not isinstance(value, (dict, list)) else type(value).__name__
    return f"{where}: {key}: {error.get('msg', 'invalid')} (got {shown}); {hint}"
