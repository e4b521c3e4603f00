"""Compiling generated C with the system compiler, cached by the hash of the source.

The library is loaded with cffi in ABI mode (``ffi.dlopen``), so building it
needs a C compiler (``cc``, or ``$CC``) and nothing of Python's own headers.
Libraries are kept in ``$XDG_CACHE_HOME/ggp-player/native`` (default
``~/.cache/...``; `CACHE_ENV` overrides), named by the SHA-256 of their source:
the same rules are compiled once per machine.  `NativeUnavailable` says why
there is no native library (no cffi, no compiler, a failed build).
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from ggp.gdl.native.csource import DECLARATIONS, check_source

CACHE_ENV = "GGP_NATIVE_CACHE"
"""Environment variable naming the folder of compiled libraries."""
COMPILER_ENV = "CC"
OPTIMISE = ("-O2",)
OPTIMISE_LARGE = ("-O1",)
"""Sources over `LARGE_SOURCE` bytes are compiled with less optimisation (time)."""
LARGE_SOURCE = 1_000_000
BUILD_CPU_SECONDS = 300
"""The compiler is stopped after this much CPU time (wall-clock time depends on
the machine's load: hex takes 11 s of CPU, and 160 s on a loaded machine)."""
BUILD_SECONDS = 3600.0
"""And after this long in any case."""


class NativeUnavailable(Exception):
    """There is no native library for these rules; says why, and `fix` how to mend it
    when that is known (empty when it is not: a build too long, a generated source the
    compiler refuses)."""

    def __init__(self, message: str, fix: str = "") -> None:
        super().__init__(message)
        self.fix = fix


PACKAGE_MANAGERS = (
    ("apt-get", "apt-get install gcc"),
    ("dnf", "dnf install gcc"),
    ("yum", "yum install gcc"),
    ("apk", "apk add gcc musl-dev"),
    ("pacman", "pacman -S gcc"),
    ("zypper", "zypper install gcc"),
    ("brew", "brew install gcc"),
)
"""The first of these found on the PATH names how to install a C compiler here."""


def compiler_fix() -> str:
    """How to get a working C compiler on this machine, in one command where one is known."""
    if sys.platform == "darwin":
        return "xcode-select --install (or set CC to a working C compiler)"
    for tool, command in PACKAGE_MANAGERS:
        if shutil.which(tool):
            return f"{command} (or set CC to a working C compiler)"
    return "install a C compiler such as gcc or clang (or set CC to one)"


def cache_dir() -> Path:
    found = os.environ.get(CACHE_ENV)
    if found:
        return Path(found)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ggp-player" / "native"


def compiler() -> str:
    """The C compiler's path; `NativeUnavailable` if there is none."""
    name = os.environ.get(COMPILER_ENV) or "cc"
    path = shutil.which(name)
    if path is None:
        raise NativeUnavailable(f"no C compiler ({name!r} is not on the PATH)", compiler_fix())
    return path


def new_ffi() -> Any:
    """A cffi FFI knowing the library's functions; `NativeUnavailable` without cffi."""
    try:
        import cffi
    except ImportError:
        raise NativeUnavailable("cffi is not installed", "pip install cffi") from None
    ffi = cffi.FFI()
    ffi.cdef(DECLARATIONS)
    return ffi


def check_available() -> None:
    """Raise `NativeUnavailable` unless cffi and a C compiler are both there."""
    new_ffi()
    compiler()


PROBE_SOURCE = "int ggp_probe(void) { return 0; }\n"


def probe() -> None:
    """Build a one-line library in the cache folder: `NativeUnavailable` (with its fix)
    if native code cannot be built here (no cffi, no compiler, a compiler that fails,
    a cache folder that cannot be written).  About a tenth of a second of the compiler."""
    check_available()
    cc = compiler()
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        work = tempfile.TemporaryDirectory(dir=folder)
    except OSError as error:
        raise NativeUnavailable(
            f"the cache folder {folder} cannot be written: {error.strerror}",
            f"make it writable, or set {CACHE_ENV} to a folder that is",
        ) from None
    with work as path:
        c_file = Path(path) / "probe.c"
        c_file.write_text(PROBE_SOURCE)
        command = [cc, "-shared", "-fPIC", "-o", str(Path(path) / "probe.so"), str(c_file)]
        try:
            _compile(command)
        except NativeUnavailable as error:
            raise NativeUnavailable(str(error), compiler_fix()) from None


def build_library(source: str) -> Path:
    """The shared library compiled from `source` (from the cache when there)."""
    check_source(source)
    digest = hashlib.sha256(source.encode()).hexdigest()[:32]
    folder = cache_dir()
    target = folder / f"gdl-{digest}.so"
    if target.exists():
        return target
    cc = compiler()
    folder.mkdir(parents=True, exist_ok=True)
    flags = OPTIMISE_LARGE if len(source) > LARGE_SOURCE else OPTIMISE
    with open(folder / f"gdl-{digest}.lock", "a") as lock:
        # another process building the same library (a match's other search worker)
        # is waited for, not raced: beside two busy cores a second compiler slows
        # both (chess_200, two builds at once: 194 s to native code, 181 s so)
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists():
            return target
        with tempfile.TemporaryDirectory(dir=folder) as work:
            c_file = Path(work) / "rules.c"
            c_file.write_text(source)
            built = Path(work) / "rules.so"
            command = [cc, *flags, "-shared", "-fPIC", "-o", str(built), str(c_file)]
            _compile(command)
            os.replace(built, target)  # atomic: a reader never sees half a library
    return target


_running: set[subprocess.Popen] = set()
_lock = threading.Lock()


def _compile(command: list[str]) -> None:
    """Run the compiler; `NativeUnavailable` if it fails or takes too long."""
    try:
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_limit_cpu,
        )
    except OSError as error:
        raise NativeUnavailable(f"the C compiler could not run: {error}", compiler_fix()) from None
    with _lock:
        _running.add(process)
    try:
        _, errors = process.communicate(timeout=BUILD_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise NativeUnavailable(f"the C compiler took over {BUILD_SECONDS:g} s") from None
    finally:
        with _lock:
            _running.discard(process)
    if process.returncode == -signal.SIGXCPU or process.returncode == -signal.SIGKILL:
        raise NativeUnavailable(f"the C compiler took over {BUILD_CPU_SECONDS} s of CPU")
    if process.returncode != 0:
        raise NativeUnavailable(
            f"the C compiler failed ({process.returncode}): {errors.strip()[:500] or 'no message'}"
        )


def _limit_cpu() -> None:
    """In the compiler's process, before it starts: its CPU time limit."""
    resource.setrlimit(resource.RLIMIT_CPU, (BUILD_CPU_SECONDS, BUILD_CPU_SECONDS + 5))


@atexit.register
def _stop_compilers() -> None:
    """A build in a background thread does not outlive the process that wanted it."""
    with _lock:
        for process in _running:
            process.kill()
