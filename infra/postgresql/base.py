"""Django's PostgreSQL backend, with a pooled connection checked before a request gets it.

After PostgreSQL restarts, every idle connection of a process's pool is dead. psycopg_pool's own
check (Django's CONN_HEALTH_CHECKS) finds them one at a time with a back-off between them (1 s,
2 s, 4 s...), so the first request after the restart waits through them all and times out. Here
the first dead connection makes the pool check all its idle ones at once (`ConnectionPool.check`:
the dead are dropped and replaced), and the request gets a new connection: it succeeds.

A backend of its own, as Django's documentation describes ("subclassing the built-in database
backends"), because the pool's `check` callable is Django's to choose.
"""

import psycopg
from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if self.pool is None:
            return connection
        try:
            connection.execute("")  # one empty round trip, as psycopg_pool's check does
        except psycopg.Error:
            self.pool.putconn(connection)  # broken: the pool drops it
            self.pool.check()  # its idle neighbours died with it (a restart): drop them all
            connection = super().get_new_connection(conn_params)
        return connection
