"""The one :class:`Store` class, made of the mixins that each own part of the API, and
:func:`open_store`."""

from __future__ import annotations

import os

from sqlalchemy import inspect

from reviewer.errors import NoDatabase
from reviewer.locations import LINK_TOKEN_ENV
from reviewer.store.activity import ActivityMixin
from reviewer.store.align_runs import AlignRunsMixin
from reviewer.store.comments import CommentsMixin
from reviewer.store.engine import make_engine, migrate
from reviewer.store.estimates import EstimatesMixin
from reviewer.store.fold import FoldMixin
from reviewer.store.importer import ImportMixin
from reviewer.store.judge_details import JudgeDetailsMixin
from reviewer.store.judging import JudgeMixin
from reviewer.store.links import LinksMixin
from reviewer.store.lite import missing_database
from reviewer.store.lookup import LookupMixin
from reviewer.store.pair_verdicts import PairVerdictsMixin
from reviewer.store.pairs import PairsMixin
from reviewer.store.people import PeopleMixin
from reviewer.store.queue import QueueMixin
from reviewer.store.queue_settings import QueueSettingsMixin
from reviewer.store.rating_columns import RatingColumnsMixin
from reviewer.store.ratings import RatingsMixin
from reviewer.store.reveals import RevealsMixin
from reviewer.store.tables import SchemaMigration, table_of


class Store(EstimatesMixin, ImportMixin, LookupMixin, PeopleMixin, QueueMixin, QueueSettingsMixin, RatingsMixin,
            RatingColumnsMixin, FoldMixin, CommentsMixin, LinksMixin, RevealsMixin, PairVerdictsMixin, PairsMixin,
            JudgeMixin, AlignRunsMixin, JudgeDetailsMixin, ActivityMixin):
    """Items, judge and human scores side by side, safety flags, and the shared queue.

    A mixin that calls another's methods inherits it (so mypy checks the call), and comes before
    it here; the last ones are those the others build on."""


def open_store(db: str | None = None, login: str | None = None, *, existing: bool = False) -> Store:
    """Open ``db`` (a SQLAlchemy URL or a SQLite path; default ``$RUBRICATE_DB`` or the user
    data directory), applying any migrations it has not had.

    ``login`` (SQLite only): the OS login to act as instead of this process's user (see
    :mod:`reviewer.store.roles`); on PostgreSQL the acting login is the database login.
    ``$RUBRICATE_LINK_TOKEN`` (set by ``rubricate serve`` for the session it starts): act
    through that link (:meth:`LinksMixin.act_through_link`), or refuse in one line.
    ``existing``: a reading command's open: a path with no file, or a database without the
    store's tables, is refused in one line (:class:`NoDatabase`) and nothing is created."""
    from reviewer.locations import default_db

    target = db or default_db()
    if existing and missing_database(target):
        raise NoDatabase(target)
    engine = make_engine(target)
    if existing and not inspect(engine).has_table(table_of(SchemaMigration).name):
        engine.dispose()
        raise NoDatabase(target)
    migrate(engine)
    store = Store(engine)
    if login is not None:
        store.act_as(login)
    token = os.environ.get(LINK_TOKEN_ENV)
    if token:  # a session served through a link (rubricate serve): it acts as the link's person
        try:
            store.act_through_link(token)
        except Exception:
            store.close()
            raise
    return store
