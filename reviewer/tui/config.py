"""The TUI's settings: one typed model, read from YAML in the user config directory.

``RUBRICATE_CONFIG`` names another file (tests always set it). Example file::

    lease_minutes: 15
    keymap:            # binding id -> keys (comma-separated), as Textual's App.set_keymap takes
      item.agree: enter,a
      item.next: n,right_square_bracket
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from reviewer.errors import UserError


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


def load_settings(path: Path | None = None) -> TuiSettings:
    """Read the settings file; a missing file means defaults, a broken one is one clear line."""
    path = path or config_path()
    if not path.exists():
        return TuiSettings()
    import yaml  # only when a config file exists

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise UserError(f"{path}{line}: not valid YAML; fix the file or remove it") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}:1: expected a mapping of settings; see `rubricate review --help`")
    known = {"lease_minutes", "page_size", "keymap"}
    unknown = set(data) - known
    if unknown:
        raise UserError(
            f"{path}: unknown setting {sorted(unknown)[0]!r}; known: {', '.join(sorted(known))}"
        )
    keymap = data.get("keymap") or {}
    if not isinstance(keymap, dict) or not all(isinstance(v, str) for v in keymap.values()):
        raise UserError(f"{path}: keymap must map binding ids to key strings, e.g. item.agree: a")
    return TuiSettings(
        lease_minutes=int(data.get("lease_minutes", 15)),
        page_size=int(data.get("page_size", 200)),
        keymap={str(k): v for k, v in keymap.items()},
    )
