"""The floor of an upload (figure 17): what storing observations costs at the least.

The observations (wire dicts, built beforehand) are encoded with ``orjson.dumps``, sent over
loopback to a process of their own, decoded there with ``orjson.loads`` and inserted as one row
per observation with the database's bulk path, in one transaction: SQLite's ``executemany``
into a new table of a file with the service's settings (WAL, ``synchronous=FULL``), PostgreSQL's
``COPY`` into a new table. The time is the sender's, from encoding to the receiver's answer
that the rows are committed.

Run as ``python -m benchmarks.upload_floor DATABASE_URL`` (a SQLAlchemy URL): it prints its
port, then answers each connection's body (an 8-byte length and the JSON) with the number of
rows inserted, until a body of length 0 or the end of its input.
"""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
from sqlalchemy.engine import make_url

LENGTH_BYTES = 8


def _receive(connection: socket.socket, size: int) -> bytes:
    """Exactly ``size`` bytes (fewer only when the sender closed)."""
    buffer = bytearray(size)
    view, received = memoryview(buffer), 0
    while received < size:
        count = connection.recv_into(view[received:])
        if count == 0:
            break
        received += count
    return bytes(buffer[:received])


class _Store:
    """Inserts observation rows into a new table per body."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self._sqlite = parsed.get_backend_name() == "sqlite"
        if self._sqlite:
            self._connection: Any = sqlite3.connect(parsed.database or ":memory:")
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=FULL")
        else:
            import psycopg

            plain = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
            self._connection = psycopg.connect(plain)
        self._tables = 0

    def insert(self, observations: list[dict[str, Any]]) -> int:
        self._tables += 1
        table = f"observations_{self._tables}"
        create = (
            f"CREATE TABLE {table} "
            "(feature_name TEXT, org_unit TEXT, period TEXT, value DOUBLE PRECISION)"
        )
        rows = (
            (row["featureName"], row["orgUnit"], row["period"], row["value"])
            for row in observations
        )
        if self._sqlite:
            with self._connection:
                self._connection.execute(create)
                self._connection.executemany(f"INSERT INTO {table} VALUES (?, ?, ?, ?)", rows)
        else:
            with self._connection.transaction(), self._connection.cursor() as cursor:
                cursor.execute(create)
                with cursor.copy(f"COPY {table} FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
        return len(observations)


def serve(url: str) -> None:
    """Answer bodies on a free loopback port (printed first) until a body of length 0."""
    store = _Store(url)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        print(listener.getsockname()[1], flush=True)
        while True:
            connection, _ = listener.accept()
            with connection:
                size = int.from_bytes(_receive(connection, LENGTH_BYTES) or bytes(8), "big")
                if size == 0:
                    return
                count = store.insert(orjson.loads(_receive(connection, size)))
                connection.sendall(count.to_bytes(LENGTH_BYTES, "big"))


def send(port: int, observations: list[dict[str, Any]]) -> int:
    """Encode ``observations`` and send them to the floor's receiver; the rows it stored."""
    body = orjson.dumps(observations)
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.sendall(len(body).to_bytes(LENGTH_BYTES, "big"))
        connection.sendall(body)
        return int.from_bytes(_receive(connection, LENGTH_BYTES), "big")


@contextmanager
def floor_receiver(url: str) -> Iterator[int]:
    """A receiver storing into ``url``, in a process of its own; its port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.upload_floor", url],
        stdout=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        yield port
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(bytes(LENGTH_BYTES))
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    serve(sys.argv[1])
