import os, sys
import pytest
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pgharness import ThrowawayPG, reap_stale


@pytest.fixture(scope="session")
def pg():
    reap_stale("/dev/shm" if os.path.isdir("/dev/shm") else None)                    # leftovers from a crashed earlier run, if any
    server = ThrowawayPG(base="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def conn(pg):
    import psycopg
    with psycopg.connect(pg.uri, autocommit=True) as c:
        yield c
