"""Every memory command, doctor and the web page's tenant on PostgreSQL: the real `memvault` command, spawned
with MEMVAULT_DATABASE_URL, as a tenant of its own (MEMVAULT_NAMESPACE)."""

from __future__ import annotations

import json
import subprocess

import pytest
from spawn import ROOT, command, server_env

pytest.importorskip("psycopg", reason="the test extra installs it")
pytestmark = pytest.mark.e2e


def test_the_memory_commands_on_postgresql(settings, tmp_path):
    env = {"MEMVAULT_DATABASE_URL": settings.database_url, "MEMVAULT_NAMESPACE": settings.namespace}

    def run(*args: str, code: int = 0) -> str:
        done = subprocess.run(command(*args), cwd=ROOT, env=server_env(settings.home, **env), capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == code, (args, done.stderr)
        return done.stdout

    assert run("remember", "We deploy billing with Helm", "--thread", "shop", "--kind", "decision") == "1\n"
    assert run("remember", "deploys go through argo cd", "--thread", "shop") == "2\n"
    assert run("remember", "Deploys go through Argo CD.", "--thread", "shop") == "3\n"
    assert [m["id"] for m in json.loads(run("list", "--json"))["memories"]] == [3, 2, 1]
    assert json.loads(run("recall", "billing Helm", "--thread", "shop", "--json"))["memories"][0]["id"] == 1
    assert run("edit", "1", "--text", "We deploy billing with Argo CD") == "4\n"
    assert json.loads(run("show", "1", "--json"))["superseded_by"]["id"] == 4
    run("forget", "4")
    assert json.loads(run("list", "--forgotten", "--json"))["total"] == 1
    run("restore", "4")
    run("pin", "4")
    run("curate", "dedupe", "--thread", "shop", "--apply")
    [shop] = json.loads(run("stats", "--json"))
    assert (shop["thread"], shop["live"], shop["superseded"], shop["pinned"], shop["forgotten"]) == ("shop", 4, 2, 1, 0)
    assert json.loads(run("threads", "--json"))[0]["thread"] == "shop"
    run("prompts", "set", "style", "--content", "Be brief.")
    run("show", "99", code=3)
    doctor = subprocess.run(command("doctor", "--json"), cwd=ROOT, env=server_env(settings.home, **env),
                            capture_output=True, text=True, timeout=120)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["database"]["status"] == "ok" and f"tenant {settings.namespace}" in checks["database"]["detail"]
    assert checks["index"]["status"] == "ok" and checks["sqlite"]["status"] == "info"
    failed = any(c["status"] == "fail" for c in checks.values())
    assert doctor.returncode == (1 if failed else 0)
