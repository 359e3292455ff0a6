"""The one :class:`Store`, made of the store's doors (one plain class per concern), and
:func:`open_store`."""

from __future__ import annotations

import os

from sqlalchemy import Engine, inspect

from reviewer.errors import NoDatabase
from reviewer.locations import LINK_TOKEN_ENV
from reviewer.store.activity import Activity
from reviewer.store.align_runs import AlignRuns
from reviewer.store.comments import Comments
from reviewer.store.corrections import Corrections
from reviewer.store.db import Db
from reviewer.store.engine import make_engine, migrate
from reviewer.store.history import History
from reviewer.store.items import Items
from reviewer.store.judge_batches import JudgeBatches
from reviewer.store.judging import Runs
from reviewer.store.lead_reviews import LeadReviews
from reviewer.store.links import Links
from reviewer.store.lite import missing_database
from reviewer.store.marks import Marks
from reviewer.store.pair_verdicts import PairVerdicts
from reviewer.store.people import Scores
from reviewer.store.queue import Queue
from reviewer.store.ratings import Ratings
from reviewer.store.roles import Roles
from reviewer.store.rubric_versions import Rubrics
from reviewer.store.safety import Safety
from reviewer.store.tables import SchemaMigration, table_of
from reviewer.store.tidy_read import Tidy


class Store:
    """Items, judge and human scores side by side, safety flags, and the shared queue: one door
    per concern, each a plain class holding the :class:`Db` and the doors it builds on.

    ``store.items.item_view(pk)``, ``store.queue.claim_next(...)``; raw SQL (tests, tools) goes
    through ``store.db.read()`` / ``store.db.write()``."""

    def __init__(self, engine: Engine) -> None:
        self.db = Db(engine)
        self.rubrics = Rubrics(self.db)
        self.roles = Roles(self.db)
        self.runs = Runs(self.db, self.rubrics)
        self.safety = Safety(self.db, self.rubrics, self.roles)
        self.comments = Comments(self.db, self.roles)
        self.scores = Scores(self.db, self.rubrics, self.roles, self.runs)
        self.pair_verdicts = PairVerdicts(self.db)
        self.items = Items(self.db, self.rubrics, self.safety, self.runs, self.comments, self.scores,
                           self.pair_verdicts)
        self.queue = Queue(self.db, self.rubrics, self.roles, self.items)
        self.ratings = Ratings(self.db, self.rubrics, self.items)
        self.links = Links(self.db, self.roles)
        self.align = AlignRuns(self.db, self.rubrics)
        self.activity = Activity(self.db, self.rubrics)
        self.batches = JudgeBatches(self.db)
        self.lead_reviews = LeadReviews(self.db, self.rubrics, self.roles, self.scores)
        self.corrections = Corrections(self.db, self.roles)
        self.history = History(self.db)
        self.marks = Marks(self.db, self.rubrics, self.roles)
        self.tidy = Tidy(self.db, self.rubrics)

    def close(self) -> None:
        """Dispose of the database's connections."""
        self.db.close()


def open_store(db: str | None = None, login: str | None = None, *, existing: bool = False) -> Store:
    """Open ``db`` (a SQLAlchemy URL or a SQLite path; default ``$RUBRICATE_DB`` or the user
    data directory), applying any migrations it has not had.

    ``login`` (SQLite only): the OS login to act as instead of this process's user (see
    :mod:`reviewer.store.roles`); on PostgreSQL the acting login is the database login.
    ``$RUBRICATE_LINK_TOKEN`` (set by ``rubricate serve`` for the session it starts): act
    through that link (:meth:`Links.act_through_link`), or refuse in one line.
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
        store.roles.act_as(login)
    token = os.environ.get(LINK_TOKEN_ENV)
    if token:  # a session served through a link (rubricate serve): it acts as the link's person
        try:
            store.links.act_through_link(token)
        except Exception:
            store.close()
            raise
    return store
