"""`serve --http` with MEMVAULT_HTTP_AUTH=oauth: an identity provider's tokens, checked by introspection.

The provider is a small RFC 7662 introspection endpoint in this process; memvault is
the real command, spawned, and spoken to with the SDK's streamable HTTP client.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

import httpx2
import pytest
from http_spawn import HttpServer, connect

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

CLIENT = ("memvault", "introspect-secret")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Provider:
    """Answers introspection for the tokens in `tokens` (anything else is inactive); checks its client's credentials."""

    def __init__(self) -> None:
        self.tokens: dict[str, dict] = {}
        self.calls = 0
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the http.server API
                provider.calls += 1
                expected = "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode()
                if self.headers.get("Authorization") != expected:
                    self.send_response(401)
                    self.end_headers()
                    return
                form = parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
                body = json.dumps(provider.tokens.get(form["token"][0], {"active": False})).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    provider = Provider()
    port = free_port()
    public = f"http://127.0.0.1:{port}/mcp"
    # A port known in advance: the public URL (the tokens' audience) names it. A later --port wins.
    srv = HttpServer(
        tmp_path_factory.mktemp("oauth") / "home", "--auth", "oauth", "--port", str(port),
        MEMVAULT_HTTP_PUBLIC_URL=public, MEMVAULT_OAUTH_ISSUER=provider.url,
        MEMVAULT_OAUTH_INTROSPECTION_URL=provider.url + "/introspect",
        MEMVAULT_OAUTH_CLIENT_ID=CLIENT[0], MEMVAULT_OAUTH_CLIENT_SECRET=CLIENT[1], MEMVAULT_OAUTH_SCOPES="memory",
    )
    srv.wait_listening()
    yield provider, srv, public
    assert srv.stop() == 0
    provider.http.shutdown()
    provider.http.server_close()


def claims(tenant: str | None, aud: str, **extra: object) -> dict:
    data = {"active": True, "sub": "alice", "client_id": "ide", "scope": "memory openid", "aud": aud, **extra}
    if tenant is not None:
        data["tenant"] = tenant
    return data


async def test_provider_tokens_select_the_tenant_and_metadata_names_the_provider(setup):
    provider, srv, public = setup
    provider.tokens["tok-a"] = claims("acme", public)
    provider.tokens["tok-b"] = claims("globex", [public, "https://other.example"], sub="bob")
    async with connect(srv.url, "tok-a") as a:
        await a.call_tool("remember", {"content": "ACME uses the blue deploy lane", "thread": "ops"})
        found = (await a.call_tool("recall", {"query": "deploy lane", "thread": "ops"})).structured_content
        assert found["memories"][0]["origin"] == "alice/ide via http"
    async with connect(srv.url, "tok-b") as b:
        found = (await b.call_tool("recall", {"query": "ACME blue deploy lane", "thread": "*", "k": 50})).structured_content
        assert "ACME" not in json.dumps(found)

    missing = httpx2.post(srv.url, json={}, headers={"Accept": "application/json, text/event-stream"})
    assert missing.status_code == 401
    metadata_url = srv.origin + "/.well-known/oauth-protected-resource/mcp"
    assert f'resource_metadata="{metadata_url}"' in missing.headers["www-authenticate"]
    metadata = httpx2.get(metadata_url).json()
    assert metadata["resource"] == public and metadata["authorization_servers"] == [provider.url]
    assert metadata["scopes_supported"] == ["memory"]


@pytest.mark.parametrize("case", ["inactive", "other-audience", "no-tenant", "bad-tenant", "no-scope", "unknown"])
async def test_tokens_the_provider_does_not_vouch_for_this_server_get_401(setup, case):
    provider, srv, public = setup
    provider.tokens.update({
        "inactive": {"active": False, "tenant": "acme", "aud": public},
        "other-audience": claims("acme", "https://other.example/mcp"),
        "no-tenant": claims(None, public),
        "bad-tenant": claims("../etc", public),
        "no-scope": claims("acme", public, scope="openid"),
    })
    response = httpx2.post(srv.url, json={}, headers={"Authorization": f"Bearer {case}",
                                                      "Accept": "application/json, text/event-stream"})
    expected = 403 if case == "no-scope" else 401  # a valid token without the scope: insufficient_scope
    assert response.status_code == expected and response.headers["www-authenticate"].startswith("Bearer ")
