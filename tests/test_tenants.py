"""Bearer tokens (TokenStore) and per-tenant services (Tenants), in-process: the parts `serve --http` is built from."""

from __future__ import annotations

import json

import pytest
from mcp import Client

from server.app import build_server
from server.errors import InvalidInput, NotFound, SetupError
from server.http.guards import parse_host
from server.http.transport import StoredTokenVerifier, allowed_hosts_and_origins, check_bind
from server.tenants import NoIdentity, Tenants, current_identity
from server.models import Principal
from server.http.tokens import TokenStore, token_hash


@pytest.fixture
def tokens(service, clock):
    return TokenStore(service.db, clock)


def test_a_token_maps_to_its_tenant_user_and_agent_and_only_its_hash_is_stored(tokens, service):
    token, info = tokens.create("acme", user="alice", agent="claude-code", label="laptop")
    assert token.startswith("mvt_") and len(token) >= 46
    verified = tokens.verify(token)
    assert (verified.id, verified.tenant, verified.user, verified.agent) == (info.id, "acme", "alice", "claude-code")
    stored = service.db.conn.execute("SELECT * FROM api_tokens").fetchall()
    assert token not in json.dumps(stored) and token_hash(token) in json.dumps(stored)
    assert tokens.create("acme")[0] != token  # random, never derived from the arguments


def test_wrong_expired_and_revoked_tokens_do_not_verify(tokens, clock):
    good, _ = tokens.create("acme", expires="1h")
    assert tokens.verify(good) is not None
    assert tokens.verify(good[:-1] + ("A" if good[-1] != "A" else "B")) is None
    assert tokens.verify("") is None and tokens.verify("Bearer " + good) is None
    clock.advance(minutes=59)
    assert tokens.verify(good) is not None
    clock.advance(minutes=2)
    assert tokens.verify(good) is None
    assert tokens.list()[0].state(int(clock().timestamp() * 1000)) == "expired"
    other, info = tokens.create("acme")
    assert tokens.revoke(info.id).revoked_at is not None
    assert tokens.verify(other) is None
    with pytest.raises(NotFound, match="token list"):
        tokens.revoke(12345)


@pytest.mark.parametrize("bad", [{"tenant": "../x"}, {"tenant": ""}, {"tenant": "a", "user": "a b"},
                                 {"tenant": "a", "expires": "0d"}, {"tenant": "a", "expires": "2001-01-01"},
                                 {"tenant": "a", "expires": "soon"}])
def test_bad_token_arguments_are_refused_with_what_to_send(tokens, bad):
    with pytest.raises(InvalidInput):
        tokens.create(**bad)
    assert tokens.list() == []


def test_last_used_is_recorded_at_most_once_a_minute(tokens, clock):
    token, _ = tokens.create("acme")
    tokens.verify(token)
    first = tokens.list()[0].last_used_at
    clock.advance(seconds=30)
    tokens.verify(token)
    assert tokens.list()[0].last_used_at == first
    clock.advance(seconds=31)
    tokens.verify(token)
    assert tokens.list()[0].last_used_at > first


@pytest.mark.anyio
async def test_the_verifier_hands_the_sdk_an_access_token_with_the_identity(tokens):
    token, info = tokens.create("acme", user="alice", agent="ci")
    access = await StoredTokenVerifier(tokens).verify_token(token)
    assert access.client_id == f"token-{info.id}" and token not in access.model_dump_json()
    assert access.claims == {"tenant": "acme", "user": "alice", "agent": "ci", "token_id": info.id}
    assert await StoredTokenVerifier(tokens).verify_token("mvt_nope") is None


def test_tenants_share_one_database_embedder_and_backfill(service):
    tenants = Tenants(service, require_identity=True)
    a = tenants.get("a")
    assert tenants.get("a") is a and a.db is service.db and a.embedder is service.embedder
    assert a.indexer is service.indexer and a.settings.namespace == "a"
    assert a.settings.files_dir != service.settings.files_dir and a.settings.archives_dir != service.settings.archives_dir
    with pytest.raises(InvalidInput):
        tenants.get("../b")


def test_with_tokens_required_no_identity_means_no_data(service):
    """Fail closed: a handler reached without an identity gets an error, never the default tenant."""
    with pytest.raises(NoIdentity):
        Tenants(service, require_identity=True).current()
    assert Tenants(service).current() is service  # stdio: the one service


@pytest.mark.anyio
async def test_in_process_clients_of_two_tenants_see_only_their_own_memories(service):
    tenants = Tenants(service, require_identity=True)
    server = build_server(tenants, start_background=False)
    results = {}
    for tenant, marker in (("a", "ALPHA"), ("b", "BETA")):
        reset = current_identity.set(Principal(tenant, user=f"{tenant}-user", agent="test"))
        try:
            async with Client(server, raise_exceptions=True) as client:
                for i in range(5):
                    await client.call_tool("remember", {"content": f"{marker} note {i} about the deploy pipeline"})
                recall = await client.call_tool("recall", {"query": "ALPHA BETA note deploy pipeline", "k": 50})
                results[tenant] = (recall.structured_content["memories"],)
        finally:
            current_identity.reset(reset)
    a_mem, b_mem = results["a"][0], results["b"][0]
    assert {m["content"].split()[0] for m in a_mem if "note" in m["content"]} == {"ALPHA"}
    assert {m["content"].split()[0] for m in b_mem if "note" in m["content"]} == {"BETA"}
    assert {m["origin"] for m in b_mem if "note" in m["content"]} == {"b-user/test via http"}
    assert all("note" not in m.content for m in service.recall("ALPHA BETA note", thread="*", k=50).memories)


def test_binding_beyond_loopback_needs_tokens_and_named_hosts(settings):
    check_bind(settings.with_(http_auth="none"), "127.0.0.1")
    check_bind(settings.with_(http_auth="none"), "::1")
    with pytest.raises(SetupError, match="memvault token create"):
        check_bind(settings.with_(http_auth="none"), "192.168.1.5")
    with pytest.raises(SetupError, match="MEMVAULT_HTTP_ALLOWED_HOSTS"):
        check_bind(settings, "0.0.0.0")
    check_bind(settings.with_(http_allowed_hosts="mem.internal:8765"), "0.0.0.0")
    check_bind(settings, "10.0.0.5")
    hosts, _ = allowed_hosts_and_origins(settings.with_(http_allowed_hosts="mem.internal:8765"), "10.0.0.5")
    for ok in ("10.0.0.5:8765", "10.0.0.5", "mem.internal:8765", "127.0.0.1:1234", "localhost"):
        assert hosts.allows(parse_host(ok)), ok
    for refused in ("mem.internal:9999", "mem.internal", "10.0.0.6:8765", "evil.example:8765"):
        assert not hosts.allows(parse_host(refused)), refused


def test_a_memvault_token_pasted_into_a_memory_is_redacted(tokens, service):
    token, _ = tokens.create("acme")
    stored = service.remember(f"the CI uses MEMVAULT token {token} for the team server")
    assert stored.redacted == ["memvault-token"]
    assert token not in service.get(stored.id).content
