"""What is a label: which people's scores on an audit-sample item count for the audit agreement
(``calibrate`` on the audit sample) and the corrected estimates.

The audit sample is drawn at random, so its items' scores estimate the whole population only when
the items were scored *because* they were drawn. A score given in the triage queue on an item that
happens to be in the audit sample was given because triage served it (it looked doubtful): counted
as a label, it biases the labelled set toward doubtful items. So a label is a score given in the
audit queue, or one that was never served by a queue: an imported score (the file vouches for its
items, ``"audit": true``) and a lead's adjudication (it settles the item, whoever served it). Every
score still counts for the ``all`` sample. The store reads this rule in SQL
(:func:`reviewer.store.fold.label_rows`) on every path that selects labels.
"""

from __future__ import annotations

#: The queue whose scores are labels (``human_score.sample``: the queue the score was given in).
LABEL_QUEUE = "audit"
#: Kinds of score that are labels whatever queue they came through: they were served by none.
LABEL_KINDS = ("import", "adjudication")
