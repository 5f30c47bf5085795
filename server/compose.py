"""Composition: where the edges build what they serve from the settings, in one place.

Every edge that starts from settings -- the stdio server and the admin commands (cli), the HTTP
server and the web page (through Tenants.open), a hook process (hooks) -- builds its embedder and
service here, so "which embedder does this process use, and how is its store opened" has one
answer. MemoryService.open takes the embedder it is given (tests and benchmarks inject theirs);
nothing else turns settings into an embedder.
"""

from __future__ import annotations

from server.clock import system_clock
from server.config import Settings
from server.embedding.embedders import Embedder, make_embedder
from server.service import MemoryService
from server.storage.opener import open_database
from server.storage.protocol import Database


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (not loaded yet: a model loads in the background on first use)."""
    return make_embedder(settings.embedder, settings.embed_threads, settings.embed_runtime, settings.model_cache)


def open_service(settings: Settings, check_model: bool = True, check_index: bool = True) -> MemoryService:
    """The service over the configured store and embedder (MemoryService.open checks the model and the
    index unless told not to; a server leaves the index check to start_background)."""
    return MemoryService.open(settings, configured_embedder(settings), system_clock, check_model, check_index)


def open_store_database(settings: Settings) -> Database:
    """The configured store's database alone (the token commands), created as the server would create it."""
    return open_database(settings, configured_embedder(settings).dimensions)
