"""Events on the dataset's records, for the apps above that react to them.

Sent inside the transaction that made the change; receivers that start jobs use
``transaction.on_commit``.
"""

from django.dispatch import Signal

# QA pairs and their evidence were written by a task (``qa_pairs``: a list): validation
# queues each pending one for checking.
pairs_written = Signal()

# A QA pair was accepted or rejected (``qa_pair``, ``state``).
pair_decided = Signal()
