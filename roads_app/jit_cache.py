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

Where the cache lives: the package's ``__pycache__`` when it can be written, else the
user's cache folder (``platformdirs.user_cache_path("roads-app")``: a read-only install,
site-packages owned by root, a container), else a folder of the system's temporary one.
A cache that cannot be read or written (full, read-only, another version's, another
CPU's, garbage) is a miss, never an error: the function compiles and runs, and nothing
is said. A kernel missing from the cache while a warm-up process compiles it
(`roads_app.sim.warmup`) waits for that process to compile it and loads its code
rather than compiling it a second time beside it.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pickle
import tempfile
import time
import types
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from numba.core import config
from numba.core.caching import (
    CacheImpl,
    FunctionCache,
    IndexDataCacheFile,
    InTreeCacheLocator,
    UserWideCacheLocator,
)

D = TypeVar("D")

_DEPENDS: dict[str, tuple[str, ...]] = {}


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _ours(py_file: str) -> bool:
    path = os.path.abspath(py_file)
    return path in _DEPENDS or path.startswith(_PACKAGE + os.sep)


def user_cache_dir() -> Path:
    """The user's cache folder for the app (compiled kernels, the warm-up's lock)."""
    import platformdirs

    return platformdirs.user_cache_path("roads-app")


class _DependentLocator(InTreeCacheLocator):
    """The in-tree cache (``__pycache__``), stamped with the dependencies' files too."""

    def get_source_stamp(self) -> object:
        deps = []
        for path in _DEPENDS.get(os.path.abspath(self._py_file), ()):
            st = os.stat(path)
            deps.append((path, st.st_mtime, st.st_size))
        return (super().get_source_stamp(), tuple(deps))

    @classmethod
    def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
        if config.CACHE_DIR or not _ours(py_file):
            return None  # numba's own locators (NUMBA_CACHE_DIR wins, as it does for all)
        return super().from_function(py_func, py_file)


class _DependentUserLocator(_DependentLocator):
    """The same cache in the user's cache folder, when ``__pycache__`` is not writable."""

    def __init__(self, py_func, py_file):  # type: ignore[no-untyped-def]
        super().__init__(py_func, py_file)
        where = self.get_suitable_cache_subpath(py_file)
        self._cache_path = str(user_cache_dir() / "numba" / where)


class _DependentTempLocator(_DependentLocator):
    """The last resort (no writable home, NUMBA_CACHE_DIR's folder not writable either):
    a folder of the temporary one."""

    @classmethod
    def from_function(cls, py_func, py_file):  # type: ignore[no-untyped-def]
        if not _ours(py_file):
            return None
        return InTreeCacheLocator.from_function.__func__(cls, py_func, py_file)  # type: ignore[attr-defined]

    def __init__(self, py_func, py_file):  # type: ignore[no-untyped-def]
        super().__init__(py_func, py_file)
        where = self.get_suitable_cache_subpath(py_file)
        user = os.getuid() if hasattr(os, "getuid") else 0
        base = Path(tempfile.gettempdir()) / f"roads-app-numba-{user}"
        self._cache_path = str(base / where)


_LOCATORS = (_DependentLocator, _DependentUserLocator, _DependentTempLocator)


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


def _use_our_locators() -> None:
    """Ours before numba's in-tree one (numba's own serve other packages' kernels and
    NUMBA_CACHE_DIR's); the temporary folder only once numba's user-wide one failed."""
    classes = CacheImpl._locator_classes
    if _DependentLocator not in classes:
        classes.insert(classes.index(InTreeCacheLocator), _DependentLocator)
        classes.insert(classes.index(InTreeCacheLocator), _DependentUserLocator)
        classes.insert(classes.index(UserWideCacheLocator) + 1, _DependentTempLocator)


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
        return _load_or_wait(self, sig, target_context)


def load_lean(dispatcher: D) -> D:
    """Load ``dispatcher``'s cached code the lean way (a decorator over
    ``@njit(cache=True)``): for the kernels a short command calls first, so
    ``roads-app simulate`` does not pay for registries only a compile needs.
    A function without a disk cache (or with the JIT disabled) is left as it is."""
    if isinstance(getattr(dispatcher, "_cache", None), FunctionCache) and _LEAN_PARTS:
        dispatcher._cache = _LeanFunctionCache(dispatcher.py_func)  # type: ignore[attr-defined]
    return dispatcher


_LEAN_PARTS = all(hasattr(FunctionCache, name) for name in ("_load_overload", "_save_overload"))
"""The lean load reuses two private steps of Numba's cache: a Numba without them gets
the ordinary load (slower to start, same code) rather than an error."""


_numba_load_index = IndexDataCacheFile._load_index


def _load_index_or_miss(self: IndexDataCacheFile) -> dict:
    try:
        return _numba_load_index(self)
    except (AttributeError, ImportError, EOFError, pickle.UnpicklingError, TypeError, ValueError):
        return {}  # written by another version of a module: stale, as its stamp would say
    except (OSError, IndexError, KeyError):
        return {}  # unreadable, or not an index at all: a miss


IndexDataCacheFile._load_index = _load_index_or_miss  # type: ignore[method-assign]


WARMING_ENV = "ROADS_APP_WARMING"
"""Set in the warm-up process itself: it never waits for its own lock."""

WAIT_AT_MOST = 300.0
"""Seconds a kernel missing from the cache waits for a warm-up process to end."""


def warming_lock() -> Path:
    """The file a warm-up process holds locked while it compiles."""
    return user_cache_dir() / "warming.lock"


def lock_warming() -> int | None:
    """Take the warm-up's lock (exclusive) and return its descriptor, to be held (or
    handed to the process that compiles) for as long as the compile runs; None where
    there is no lock to take (no such folder can be written, or no ``fcntl``)."""
    try:
        import fcntl

        path = warming_lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except (ImportError, OSError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # another warm-up holds it: that one compiles
        os.close(fd)
        return None
    return fd


def warming_now() -> bool:
    """Whether a warm-up process holds its lock (never, seen from that process)."""
    if os.environ.get(WARMING_ENV):
        return False
    try:
        import fcntl

        fd = os.open(warming_lock(), os.O_RDONLY)
    except (ImportError, OSError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def _load_or_wait(cache: FunctionCache, sig: object, target_context: object) -> object:
    """The cached code for ``sig``, or None (compile). A cache that cannot be read is a
    miss; a miss while a warm-up process runs looks again every tenth of a second, so
    it takes the code as soon as that kernel is compiled (not when the whole warm-up
    ends), and once more after the warm-up ended."""
    end = time.monotonic() + WAIT_AT_MOST
    waiting = True
    while True:
        try:
            found = cache._load_overload(sig, target_context)  # type: ignore[attr-defined]
        except Exception:  # a cache of another build, garbage: compile
            return None
        if found is not None or not waiting:
            return found
        waiting = warming_now() and time.monotonic() < end
        if waiting:
            time.sleep(0.1)


def _load_overload(self: FunctionCache, sig: object, target_context: object) -> object:
    target_context.refresh()  # type: ignore[attr-defined]  (as numba's load does)
    return _load_or_wait(self, sig, target_context)


def _save_overload(self: FunctionCache, sig: object, data: object) -> None:
    # full, read-only, gone: the code compiled runs, and the next run compiles again
    with contextlib.suppress(OSError):
        self._save_overload(sig, data)  # type: ignore[attr-defined]


FunctionCache.load_overload = _load_overload  # type: ignore[method-assign,assignment]
FunctionCache.save_overload = _save_overload  # type: ignore[method-assign,assignment]
_use_our_locators()


def is_cached(dispatcher: object) -> bool:
    """Whether ``dispatcher`` runs without compiling: compiled in this process, or its
    cache holds code for this machine (another CPU's or version's code does not count).
    True where it cannot tell (no disk cache, Numba's layout changed): do not guess."""
    if getattr(dispatcher, "signatures", None):
        return True
    try:
        index = dispatcher._cache._cache_file._load_index()  # type: ignore[attr-defined]
        magic = dispatcher.targetctx.codegen().magic_tuple()  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return True
    return any(key[1] == magic for key in index)


def runs_interpreted(dispatcher: object, small: bool) -> bool:
    """Whether to run ``dispatcher``'s own source interpreted (`interpreted`) rather than
    compile it: for a ``small`` job while its code is neither compiled here nor in the
    cache, unless this process is a warm-up (`warming`), which is there to compile it."""
    return small and not os.environ.get(WARMING_ENV) and not is_cached(dispatcher)


def for_size(dispatcher: D, small: bool) -> D:
    """``dispatcher``, or its own source interpreted (`interpreted`, made once) where
    `runs_interpreted` says so: a ``small`` job while its code is in no cache (a new
    install's first board, drawn while the warm-up compiles the roads for later)."""
    return _plain(dispatcher) if runs_interpreted(dispatcher, small) else dispatcher


@functools.cache
def _plain(dispatcher: Any) -> Any:
    return interpreted(dispatcher)


@contextlib.contextmanager
def warming() -> Iterator[int | None]:
    """Hold the warm-up's lock while compiling in this process (a server started
    meanwhile waits for the code rather than compiling it beside us); its descriptor
    (None: no lock) for a helper process to hold with us."""
    fd = lock_warming()
    os.environ[WARMING_ENV] = "1"
    try:
        yield fd
    finally:
        del os.environ[WARMING_ENV]
        if fd is not None:
            os.close(fd)


def interpreted(
    dispatcher: object, replace: Mapping[object, Callable[..., Any]] | None = None
) -> Callable[..., Any]:
    """``dispatcher``'s own Python code run by the interpreter, with every kernel it calls
    (by name, or as an attribute of a module it names: ``session.step``) run the same
    way: nothing compiled nor loaded. ``replace`` gives a plain function to call in place
    of a kernel (one the interpreter cannot run: an LLVM intrinsic inside). For a kernel
    that runs on small input before its code is in the cache (the exact odds of a full
    shoe: a hundredth of a second interpreted against seconds of compiling on a new
    install; a small backtest, `roads_app.sim.kernel.run_fast`), where the compiled
    code's speed never pays for its compile."""
    from numba.core.dispatcher import Dispatcher

    done: dict[object, Callable[..., Any]] = {}
    swap = dict(replace or {})

    def plain(d: Any) -> Callable[..., Any]:
        if d in swap:
            return swap[d]
        f = d.py_func if isinstance(d, Dispatcher) else d
        if f not in done:
            names = dict(f.__globals__)  # this function's own view of its module's names
            done[f] = types.FunctionType(
                f.__code__, names, f.__name__, f.__defaults__, f.__closure__
            )
            for name in f.__code__.co_names:
                value = names.get(name)
                if isinstance(value, Dispatcher):
                    names[name] = plain(value)
                elif isinstance(value, ModuleType) and _ours(str(getattr(value, "__file__", ""))):
                    names[name] = _PlainModule(value, plain)
        return done[f]

    return plain(dispatcher)


class _PlainModule:
    """One of the app's modules as an interpreted function sees it: its kernels read as
    attributes (``session.step``) come back interpreted too."""

    def __init__(self, module: ModuleType, plain: Callable[[Any], Any]) -> None:
        self._module, self._plain = module, plain

    def __getattr__(self, name: str) -> Any:
        from numba.core.dispatcher import Dispatcher

        value = getattr(self._module, name)
        found = self._plain(value) if isinstance(value, Dispatcher) else value
        setattr(self, name, found)  # looked up once: the next read is an attribute
        return found
