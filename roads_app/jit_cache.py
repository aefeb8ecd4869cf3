"""Numba's on-disk cache for kernels that call kernels of other modules.

Numba keys a cached function by its own file's stamp only: change a kernel it calls in
another file (the dealing primitives in `sim/kernel.py`, the exact-odds kernel in
`bets/odds.py`) and it would go on loading the old machine code. A module that calls
another module's kernels says so with `depends_on` (before its ``@njit(cache=True)``
definitions) and its cached code is then also keyed by those files' stamps, and by the
files those modules said they depend on in turn.

A cache index that no longer loads (its signatures name a class an upgrade renamed or
removed: Numba unpickles the index before it compares the stamps) is a miss, as a stale
stamp is, not an error: the function compiles and the index is written anew.
"""

from __future__ import annotations

import os
import pickle
from types import ModuleType
from typing import TypeVar

from numba.core import config
from numba.core.caching import CacheImpl, FunctionCache, IndexDataCacheFile, InTreeCacheLocator

D = TypeVar("D")

_DEPENDS: dict[str, tuple[str, ...]] = {}


class _DependentLocator(InTreeCacheLocator):
    """The in-tree cache (``__pycache__``), stamped with the dependencies' files too."""

    def get_source_stamp(self) -> object:
        deps = []
        for path in _DEPENDS[os.path.abspath(self._py_file)]:
            st = os.stat(path)
            deps.append((path, st.st_mtime, st.st_size))
        return (super().get_source_stamp(), tuple(deps))

    @classmethod
    def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
        if config.CACHE_DIR or os.path.abspath(py_file) not in _DEPENDS:
            return None  # numba's own locators (NUMBA_CACHE_DIR wins, as it does for all)
        return super().from_function(py_func, py_file)


def depends_on(module_file: str, *modules: ModuleType) -> None:
    """Key the cached kernels of ``module_file`` by ``modules``' source files as well
    (and by what those declared, so a chain of kernels calling kernels is followed)."""
    paths: list[str] = []
    for m in modules:
        path = os.path.abspath(str(m.__file__))
        for p in (path, *_DEPENDS.get(path, ())):
            if p not in paths:
                paths.append(p)
    _DEPENDS[os.path.abspath(module_file)] = tuple(paths)
    if _DependentLocator not in CacheImpl._locator_classes:
        CacheImpl._locator_classes.insert(0, _DependentLocator)


class _LeanFunctionCache(FunctionCache):
    """Numba's cache of one function, loading its machine code without first importing
    every typing and lowering registry Numba has (its `load_overload` refreshes the
    whole target context: half a second of CPU at a cold start, for code that is
    already compiled). Only the runtime (NRT) the loaded code allocates with is
    started. A miss returns None as before and the function compiles; the compiler
    refreshes the context itself."""

    def load_overload(self, sig, target_context):  # type: ignore[no-untyped-def]
        from numba.core.runtime import rtsys

        rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # the guard swallowed an I/O error: compile


def load_lean(dispatcher: D) -> D:
    """Load ``dispatcher``'s cached code the lean way (a decorator over
    ``@njit(cache=True)``): for the kernels a short command calls first, so
    ``roads-app simulate`` does not pay for registries only a compile needs.
    A function without a disk cache (or with the JIT disabled) is left as it is."""
    if isinstance(getattr(dispatcher, "_cache", None), FunctionCache) and _LEAN_PARTS:
        dispatcher._cache = _LeanFunctionCache(dispatcher.py_func)  # type: ignore[attr-defined]
    return dispatcher


_LEAN_PARTS = all(
    hasattr(FunctionCache, name) for name in ("_load_overload", "_guard_against_spurious_io_errors")
)
"""The lean load reuses two private steps of Numba's cache: a Numba without them gets
the ordinary load (slower to start, same code) rather than an error."""


_numba_load_index = IndexDataCacheFile._load_index


def _load_index_or_miss(self: IndexDataCacheFile) -> dict:
    try:
        return _numba_load_index(self)
    except (AttributeError, ImportError, EOFError, pickle.UnpicklingError, TypeError, ValueError):
        return {}  # written by another version of a module: stale, as its stamp would say


IndexDataCacheFile._load_index = _load_index_or_miss  # type: ignore[method-assign]
