"""The garbage collector during a build.

A build makes and drops millions of small containers (rows, records, their lists and
dicts) while the process holds a large heap of long-lived ones (the modules, Django's
and the apps'). Python's collector scans the young objects every few hundred
allocations and, now and then, the whole heap: at 50k pairs that was a fifth of the
records stage's CPU time, spent finding little garbage (records are trees, freed by
their reference counts). So for its length the objects alive when it starts are set
aside (``gc.freeze``) and the young generation is collected less often; cycles made
during it are still collected.
"""

import gc
import threading
from contextlib import contextmanager

# Allocations between collections of the young generation (Python's default is 700).
YOUNG_THRESHOLD = 20_000

_lock = threading.Lock()
_depth = 0  # blocks open, in any thread
_saved = []  # the thresholds before the outermost block


@contextmanager
def fewer_collections():
    """Collects less often inside the block; nested or concurrent blocks share the outermost's."""
    global _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            _saved[:] = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(max(YOUNG_THRESHOLD, _saved[0]), *_saved[1:])
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
                gc.unfreeze()
