"""Running test code in several threads that all start at the same moment, and waiting
for work done in another process."""

import threading
import time

from django.db import connections


def at_once(work, arguments, *, timeout=60):
    """Calls ``work(argument)`` for every argument, each in its own thread, all released
    together. Returns ``(results, errors)``; each thread closes its database connections."""
    start = threading.Barrier(len(arguments))
    results, errors = [], []

    def run(argument):
        try:
            start.wait()
            results.append(work(argument))
        except Exception as error:  # noqa: BLE001 (returned to the test, which asserts on it)
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(argument,)) for argument in arguments]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return results, errors


def wait_for(check, seconds=30):
    """Polls ``check()`` until it is true (returns True) or ``seconds`` pass (False):
    for work a Celery worker does in its own process."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False
