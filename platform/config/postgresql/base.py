"""Django's PostgreSQL backend with two savings for the statements run on every request.

**A health check that costs no round trip.** With ``CONN_HEALTH_CHECKS`` Django asks a
kept connection ``SELECT 1`` before its first query in every request: two round trips
more on every cycle of a rater's hand-out and submission. A connection PostgreSQL has
ended (a restart, an administrator's ``pg_terminate_backend``, an idle timeout) is sent a
last message and closed, so its socket becomes readable while nothing was asked of it;
an idle healthy connection has nothing to read. So the check looks at the socket first
and asks ``SELECT 1`` only when something is waiting there (a closed socket, an error
message, a notice), or after the request's errors, as Django does.

**Prepared statements** (``execute_prepared``): the hand-out's and the submission's
statements are parsed and planned once per connection instead of on every call, where
planning them cost the server about as much as running them. Prepared statements belong
to a session: a proxy that hands each transaction another server connection (PgBouncer's
transaction pooling) would lose them.
"""

import select

from django.db import IntegrityError, NotSupportedError
from django.db.backends.postgresql import base
from psycopg2 import errors

# Distinct statements prepared on one connection at most; beyond, they run unprepared.
PREPARED_LIMIT = 64


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        self.prepared_statements = {}
        return connection

    def is_usable(self):
        if self.connection is None or self.connection.closed:
            return False
        if not self.errors_occurred and not _waiting_input(self.connection):
            return True
        return super().is_usable()

    def execute_prepared(self, cursor, sql, params):
        """Runs ``sql`` (``%s`` placeholders, no literal ``%``) with ``params`` on
        ``cursor`` as a statement prepared on this connection: prepared with the first
        call, in the same round trip, and executed by name from then on."""
        prepared = self.prepared_statements
        name = prepared.get(sql)
        arguments = ", ".join(["%s"] * len(params))
        if name is not None:
            try:
                return cursor.execute(f"EXECUTE {name}({arguments})" if params else f"EXECUTE {name}", params)
            except NotSupportedError as error:
                if isinstance(error.__cause__, errors.FeatureNotSupported):
                    # "cached plan must not change result type": a migration changed a
                    # column it returns. Prepared again on the next call.
                    del prepared[sql]
                raise
        if len(prepared) >= PREPARED_LIMIT:
            return cursor.execute(sql, params)
        # A name never used before on this connection: a failed first call may have left
        # its statement prepared.
        self.prepared_count = getattr(self, "prepared_count", 0) + 1
        name = f"trailmark_{self.prepared_count}"
        numbered = sql.split("%s")
        text = numbered[0] + "".join(f"${n}{part}" for n, part in enumerate(numbered[1:], start=1))
        try:
            result = cursor.execute(f"PREPARE {name} AS {text}; EXECUTE {name}({arguments})" if params
                                    else f"PREPARE {name} AS {text}; EXECUTE {name}", params)  # fmt: skip
        except IntegrityError:
            prepared[sql] = name  # the statement ran, so it was prepared: only its row was refused
            raise
        prepared[sql] = name
        return result


def _waiting_input(connection):
    poller = select.poll()
    poller.register(connection.fileno(), select.POLLIN)
    return bool(poller.poll(0))
