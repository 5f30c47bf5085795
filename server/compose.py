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
from server.embedding.embedders import Embedder, MiniLMEmbedder, make_embedder
from server.service import MemoryService
from server.storage.opener import open_database
from server.storage.protocol import Database


def configured_embedder(settings: Settings) -> Embedder:
    """The embedder the settings name (not loaded yet: a model loads in the background on first use)."""
    return make_embedder(
        settings.embedder, settings.embed_threads, settings.embed_runtime, settings.model_cache, settings.embed_precision
    )


def open_service(settings: Settings, check_model: bool = True, check_index: bool = True) -> MemoryService:
    """The service over the configured store and embedder, the model checked unless told not to.

    MEMVAULT_EMBED_PRECISION=auto (the default) runs the graph the store's vectors were made with
    (float32 for a store embedded before int8 became the default; int8 for a new one): the
    embedder follows the store before its model loads and before the check. `check_index=False`
    leaves the index check (whole-table reads) to start_background, which a server calls."""
    embedder = configured_embedder(settings)
    service = MemoryService.open(settings, embedder, system_clock, check_model=False, check_index=check_index)
    try:
        if isinstance(embedder, MiniLMEmbedder):
            embedder.follow_store(service.store.get_meta("embedding_model"))
        if check_model:
            service._check_model()  # the check MemoryService.open makes, once the precision follows the store
    except BaseException:
        service.close()
        raise
    return service


def open_store_database(settings: Settings) -> Database:
    """The configured store's database alone (the token commands), created as the server would create it."""
    return open_database(settings, configured_embedder(settings).dimensions)
