"""snowballstemmer's English stemmer, loaded without the other 29 languages."""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types


def english_stemmer() -> type:
    """snowballstemmer's EnglishStemmer class, its module alone. Importing it by name runs the package's
    `__init__` first, which imports all 30 languages: 3.2 MB more of every server's memory and ~22 ms
    (90 on a busy machine) against 0.3 MB. So its folder is imported under a private package name, the
    English module and its two base modules only; `snowballstemmer` itself is left unimported for
    whoever wants the whole package."""
    with _snowball_lock:
        if _SNOWBALL not in sys.modules:
            spec = importlib.util.find_spec("snowballstemmer")  # finds the folder without running __init__
            if spec is None or not spec.submodule_search_locations:
                raise ImportError("snowballstemmer is not installed (a memvault dependency): reinstall memvault")
            package = types.ModuleType(_SNOWBALL)
            package.__path__ = list(spec.submodule_search_locations)
            sys.modules[_SNOWBALL] = package
    # Through the import system, not sys.modules: a module another thread is still importing is in
    # sys.modules half made (no EnglishStemmer yet); import_module waits for it.
    return importlib.import_module(_SNOWBALL + ".english_stemmer").EnglishStemmer


#: The private package name snowballstemmer's folder is imported under (english_stemmer).
_SNOWBALL = "_memvault_snowballstemmer"
_snowball_lock = threading.Lock()
