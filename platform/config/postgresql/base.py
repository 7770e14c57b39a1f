"""Django's PostgreSQL backend with a health check that costs no round trip.

With ``CONN_HEALTH_CHECKS`` Django asks a kept connection ``SELECT 1`` before its first
query in every request: two round trips more on every cycle of a rater's hand-out and
submission. A connection PostgreSQL has ended (a restart, an administrator's
``pg_terminate_backend``, an idle timeout) is sent a last message and closed, so its
socket becomes readable while nothing was asked of it; an idle healthy connection has
nothing to read. So the check looks at the socket first and asks ``SELECT 1`` only when
something is waiting there (a closed socket, an error message, a notice), or after the
request's errors, as Django does.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self):
        if self.connection is None or self.connection.closed:
            return False
        if not self.errors_occurred and not _waiting_input(self.connection):
            return True
        return super().is_usable()


def _waiting_input(connection):
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN)
    return bool(poller.poll(0))
