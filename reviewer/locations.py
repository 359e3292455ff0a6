"""Where rubricate keeps its files (XDG-style, via platformdirs), which database it opens, and
which OS account runs it (or which served link it acts through)."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_data_dir

#: The environment variable through which ``rubricate serve`` hands a visitor's session its
#: link's token (never the command line, which every user of the host can read).
LINK_TOKEN_ENV = "RUBRICATE_LINK_TOKEN"


def data_dir() -> Path:
    """The user data directory (created on demand)."""
    path = Path(os.environ.get("RUBRICATE_DATA_DIR") or user_data_dir("rubricate"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_db(name: str = "rubricate.db") -> str:
    """``--db`` when not given: ``$RUBRICATE_DB``, else ``name`` in the data directory (the demo's
    is ``demo.db``)."""
    return os.environ.get("RUBRICATE_DB") or str(data_dir() / name)


def os_login() -> str:
    """The OS account running this process: the passwd name of its real user id. Never
    ``$LOGNAME`` or ``$USER`` (anyone sets those): on SQLite this login is the acting person."""
    import pwd

    uid = os.getuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # no passwd entry for the uid (some containers)
        return f"uid{uid}"
