"""`memvault ui`: serve the web page on loopback and print its address (with the login token).

The page acts for this process's namespace (local mode, the default), or for the tenant of a
bearer token pasted into its login form (`--auth tokens`), as `serve --http` would. It runs
the same background work as a server (the model loads, waiting vectors are embedded), and
stops on Ctrl-C or SIGTERM, closing the store.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from typing import Any

import anyio

from server.cli.output import USAGE
from server.config import Settings
from server.http.tokens import TokenStore
from server.models import Principal
from server.tenants import Tenants


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ui", help="open the web page: browse, search, correct and delete memories (loopback only)",
        description="Serves the web page on 127.0.0.1 and prints its address, which carries a random login "
        "token (`--auth tokens` logs in with a bearer token of `memvault token create` instead). Stop with Ctrl-C.",
    )
    p.add_argument("--host", default="127.0.0.1", help="a loopback address (default 127.0.0.1); nothing else is allowed")
    p.add_argument("--port", type=int, default=0, help="port (default 0: any free port; the address is printed)")
    p.add_argument("--auth", choices=("local", "tokens"), default="local",
                   help="local: the printed token (this namespace); tokens: a bearer token's tenant, as serve --http")
    p.add_argument("--open", action="store_true", help="also open the address in the default browser")
    p.set_defaults(run=run)


def run(settings: Settings, args: argparse.Namespace, out: Any) -> int:
    from server.http.guards import is_loopback  # lazy: ~20 ms on every CLI command otherwise

    if not is_loopback(args.host):
        out.say(f"refusing {args.host}: the web page listens on loopback only (127.0.0.1, ::1 or localhost). To "
                "share memory with a team, use `memvault serve --http` with tokens.")
        return USAGE
    serve(settings, args.host, args.port, args.auth, args.open)
    return 0


def serve(settings: Settings, host: str, port: int, auth: str, open_browser: bool = False) -> None:
    # lazy: uvicorn and the web app, ~0.3 s (starlette, jinja) that only `memvault ui` needs
    import uvicorn

    # lazy: the web app (starlette, jinja), ~1.3 s with its routes, only `memvault ui` needs
    from server.web.app import build_app
    from server.web.security import Gate

    # Bind first, so the printed address has the real port (--port 0) before any request.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    port = sock.getsockname()[1]
    tenants = Tenants.open(settings, require_identity=auth == "tokens")
    base = tenants.base
    try:
        launch = secrets.token_urlsafe(24) if auth == "local" else None
        verify = TokenStore(base.db, base.clock).verify if auth == "tokens" else None
        gate = Gate(port, Principal.from_settings(settings), launch, verify)
        app = build_app(tenants, gate)
        tenants.start_background(model_delay=0.5)
        shown = f"[{host.strip('[]')}]" if ":" in host else host
        url = f"http://{shown}:{port}/" + (f"login?token={launch}" if launch else "login")
        # uvicorn logs through ours (stderr), warnings only: no line per request or at start.
        config = uvicorn.Config(app, log_config=None, access_log=False, log_level="warning", lifespan="off")
        server = _server()(config)

        async def main() -> None:
            async with anyio.create_task_group() as tg:
                async def announce() -> None:
                    while not server.started:
                        await anyio.sleep(0.05)
                    # stdout: the address alone (scripts read it); stderr: what it is.
                    print(url, flush=True)
                    print(f"memvault: web page for {'this namespace (' + settings.namespace + ')' if launch else 'bearer tokens'}"
                          f" at {url} — stop with Ctrl-C", file=sys.stderr, flush=True)
                    if open_browser:
                        import webbrowser  # lazy: ~20 ms, only with --open

                        webbrowser.open(url)

                tg.start_soon(announce)
                try:
                    await server.serve(sockets=[sock])
                finally:
                    tg.cancel_scope.cancel()

        anyio.run(main)
    finally:
        tenants.stop()
        tenants.close()
        sock.close()


def _server() -> type:
    import uvicorn  # lazy: ~130 ms, only `memvault ui` serves

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # Ctrl-C or SIGTERM: stop serving, close the store and exit 0 (uvicorn would
            # re-raise the signal after its shutdown, before the store is closed).
            super().handle_exit(sig, frame)
            self._captured_signals.clear()

    return Server
