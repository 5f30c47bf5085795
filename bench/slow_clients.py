"""Slow clients against `memvault serve --http`: can they hold the server's connections?

Starts a server (hash embedder, --auth none, default limits unless overridden in the
environment), then from this one client address:

  1. opens --connections connections that each send half a request line and stop
     (a slow-loris), and one request whose body arrives at 1 byte/s;
  2. counts, after 1 s, how many are held open and how many were refused (503);
  3. times a normal request (initialize) from another client address while they are held;
  4. counts, after the header time limit plus 3 s, how many are still held and whether the
     trickled body got its 408.

    python bench/slow_clients.py                          # this checkout
    python bench/slow_clients.py --checkout /other/clone  # another checkout's code, same probe

Prints one line of figures; nothing is written.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def _start(checkout: Path, home: Path) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "MEMVAULT_HOME": str(home), "MEMVAULT_EMBEDDER": "hash"}
    log = home / "server.log"  # a file, not a pipe: a pipe nobody drains would block the server's logging
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "server", "serve", "--http", "--auth", "none", "--port", "0"],
                                cwd=checkout, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if found := re.search(rb"listening on http://127\.0\.0\.1:(\d+)", log.read_bytes()):
            return proc, int(found.group(1))
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start")


def _alive(sock: socket.socket) -> bool:
    """Still open from the server's side: no EOF or reset waiting to be read (a 503 or 408 is read past)."""
    sock.setblocking(False)
    while True:
        try:
            if sock.recv(65536) == b"":
                return False
        except BlockingIOError:
            return True
        except OSError:
            return False


def _request(port: int) -> float:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}).encode()
    started = time.monotonic()
    # From another address (127.0.0.2, loopback too): the slow client's own cap must not refuse others.
    with socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.2", 0)) as sock:
        sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                     f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        answer = sock.recv(64)
    assert answer.startswith(b"HTTP/1.1 200"), answer
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--connections", type=int, default=1100, help="connections with unfinished headers (1100)")
    parser.add_argument("--checkout", default=str(HERE.parent), help="the memvault checkout to run (default: this one)")
    parser.add_argument("--wait", type=float, default=float(os.environ.get("MEMVAULT_HTTP_HEADER_TIMEOUT_SECONDS", 10)) + 3,
                        help="seconds before counting what is still held (the header limit + 3)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="memvault-slow-"))
    proc, port = _start(Path(args.checkout), home)
    socks: list[socket.socket] = []
    try:
        for _ in range(args.connections):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(s)
        trickle = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.3", 0))  # a client of its own
        trickle.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                        "Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{".encode())
        time.sleep(1)
        held_first = sum(_alive(s) for s in socks)
        normal = _request(port)
        end = time.monotonic() + args.wait
        while time.monotonic() < end:  # the body's trickle: one byte a second
            try:
                trickle.sendall(b" ")
            except OSError:
                pass
            time.sleep(1)
        held_after = sum(_alive(s) for s in socks)
        trickle.setblocking(True)
        trickle.settimeout(35)
        try:
            got = trickle.recv(64)
        except OSError:
            got = b""
        status = got.split(b"\r\n")[0].decode(errors="replace") or "no answer within 35 s more"
        print(f"{args.connections} unfinished-header connections: held after 1 s {held_first}, "
              f"refused {args.connections - held_first}; a normal request meanwhile {normal * 1000:.0f} ms; "
              f"held after {args.wait:g} s {held_after}; the 1 byte/s body: {status}")
    finally:
        for s in socks:
            s.close()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
