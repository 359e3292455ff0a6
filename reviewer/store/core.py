"""The one :class:`Store` class, made of the mixins that each own part of the API, and
:func:`open_store`."""

from __future__ import annotations

from reviewer.store.comments import CommentsMixin
from reviewer.store.engine import make_engine, migrate
from reviewer.store.estimates import EstimatesMixin
from reviewer.store.fold import FoldMixin
from reviewer.store.importer import ImportMixin
from reviewer.store.judging import JudgeMixin
from reviewer.store.lookup import LookupMixin
from reviewer.store.pairs import PairsMixin
from reviewer.store.people import PeopleMixin
from reviewer.store.queue import QueueMixin
from reviewer.store.queue_settings import QueueSettingsMixin
from reviewer.store.rating_columns import RatingColumnsMixin
from reviewer.store.ratings import RatingsMixin
from reviewer.store.reveals import RevealsMixin


class Store(EstimatesMixin, ImportMixin, LookupMixin, PeopleMixin, QueueMixin, QueueSettingsMixin, RatingsMixin,
            RatingColumnsMixin, FoldMixin, CommentsMixin, RevealsMixin, PairsMixin, JudgeMixin):
    """Items, judge and human scores side by side, safety flags, and the shared queue.

    A mixin that calls another's methods inherits it (so mypy checks the call), and comes before
    it here; the last ones are those the others build on."""


def open_store(db: str | None = None, login: str | None = None) -> Store:
    """Open ``db`` (a SQLAlchemy URL or a SQLite path; default ``$RUBRICATE_DB`` or the user
    data directory), applying any migrations it has not had.

    ``login`` (SQLite only): the OS login to act as instead of this process's user (see
    :mod:`reviewer.store.roles`); on PostgreSQL the acting login is the database login."""
    from reviewer.locations import default_db

    engine = make_engine(db or default_db())
    migrate(engine)
    store = Store(engine)
    if login is not None:
        store.act_as(login)
    return store
