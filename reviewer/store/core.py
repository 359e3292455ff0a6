"""The one :class:`Store` class, made of the mixins that each own part of the API, and
:func:`open_store`."""

from __future__ import annotations

from reviewer.store.engine import make_engine, migrate
from reviewer.store.fold import FoldMixin
from reviewer.store.importer import ImportMixin
from reviewer.store.judging import JudgeMixin
from reviewer.store.pairs import PairsMixin
from reviewer.store.people import PeopleMixin
from reviewer.store.queue import QueueMixin
from reviewer.store.queue_settings import QueueSettingsMixin
from reviewer.store.ratings import RatingsMixin


class Store(FoldMixin, ImportMixin, JudgeMixin, PairsMixin, PeopleMixin, QueueMixin, QueueSettingsMixin, RatingsMixin):
    """Items, judge and human scores side by side, safety flags, and the shared queue."""


def open_store(db: str | None = None) -> Store:
    """Open ``db`` (a SQLAlchemy URL or a SQLite path; default ``$RUBRICATE_DB`` or the user
    data directory), applying any migrations it has not had."""
    from reviewer.locations import default_db

    engine = make_engine(db or default_db())
    migrate(engine)
    return Store(engine)
