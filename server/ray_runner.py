"""Matches as Ray tasks on a cluster: the optional extra ``cluster`` (Ray).

`RayCluster` connects to a cluster (or starts a local Ray instance) and plays
a list of matches with the interface of `ggp.server.runner`: each match is one
task needing one CPU, so the cluster runs as many at once as it has CPUs.  A
match's seed is part of its task, so the results are those of local
processes.  A task whose worker or node is lost is run again (`MAX_RETRIES`);
an error raised by a match itself is not retried: it would fail again.
Ctrl-C cancels the tasks (those under way abort and log their matches).

Every node must be able to import this package (``pip install ggp-player``
in the Python environment that runs ``ray start``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from ggp.games.base import GameError
from ggp.server.runner import OnResult, Play, Task, ignore_result

INSTALL_HINT = "Ray is not installed: pip install 'ggp-player[cluster]'"

CONNECT_TIMEOUT = 5.0
"""Seconds to wait for a cluster's address to answer before giving up."""

JOIN_TIMEOUT = 20.0
"""Seconds to wait for Ray to join a cluster that answers (usually 1 to 5 s)."""

MAX_RETRIES = 3
"""How many times a match whose worker died is started again."""

WAIT_SECONDS = 0.2
"""How long each wait for finished matches lasts: the latency of the progress bar."""

CANCEL_SECONDS = 10.0
"""After Ctrl-C, how long the cancelled matches have to abort and write their logs."""


def import_ray() -> ModuleType:
    """The `ray` module, or a GameError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise GameError(INSTALL_HINT) from None
    return ray


def host_and_port(address: str) -> tuple[str, int]:
    """``HOST:PORT`` or ``ray://HOST:PORT`` split, or a GameError."""
    bare = address.removeprefix("ray://")
    host, sep, port = bare.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise GameError(f"--ray {address}: expected HOST:PORT, ray://HOST:PORT or auto")
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Raise a GameError unless something accepts connections at `address` within `timeout`
    (Ray itself would keep retrying for a long time)."""
    host, port = host_and_port(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as error:
        raise GameError(
            f"cannot reach the Ray cluster at {address}: {error.strerror or error}"
        ) from None


def _use_token_if_any() -> None:
    """Authenticate with Ray's token when there is one and no mode is set.

    ``ray start --head`` turns token authentication on when a token exists
    (``~/.ray/auth_token``), but a program joining the cluster does not, and is
    refused; Ray's advice is ``RAY_AUTH_MODE=token``, which this sets.
    """
    if "RAY_AUTH_MODE" in os.environ:
        return
    token_file = os.environ.get("RAY_AUTH_TOKEN_PATH", Path.home() / ".ray" / "auth_token")
    if "RAY_AUTH_TOKEN" in os.environ or Path(token_file).is_file():
        os.environ["RAY_AUTH_MODE"] = "token"


def _play_task(play: Play, setup: Any, index: int) -> Any:
    return asyncio.run(play(setup, index))


class _Without(logging.Filter):
    """Drops the log records that start with `prefix`."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.prefix)


class RayCluster:
    """A connection to a Ray cluster that plays matches; a context manager that disconnects
    (and stops the local instance it started, if any)."""

    def __init__(self, address: str, local_cpus: int = 2) -> None:
        """Connect to the cluster at `address` (``HOST:PORT`` of its head, ``ray://HOST:PORT``
        for Ray Client), or with ``auto`` to the one started on this machine by
        ``ray start``, or if there is none to a new local instance of `local_cpus` CPUs.
        If this program is connected to Ray already, that connection is used."""
        _use_token_if_any()  # before Ray is imported: it reads its settings once
        self.ray = import_ray()
        if address != "auto":
            check_reachable(address)
        self.owned = not self.ray.is_initialized()
        """Whether this connection is ours to close (not one the program made before)."""
        if self.owned:
            self._connect(address, local_cpus)
        self._task = self.ray.remote(num_cpus=1, max_retries=MAX_RETRIES, retry_exceptions=False)(
            _play_task
        )

    def _connect(self, address: str, local_cpus: int) -> None:
        options: dict[str, Any] = {
            "logging_level": logging.WARNING,
            "log_to_driver": False,
            "include_dashboard": False,
        }
        if address == "auto":
            try:
                self.ray.init(address="auto", **options)
            except ConnectionError:
                self.ray.init(address="local", num_cpus=local_cpus, **options)
            return
        # Ray waits long for a cluster that does not let it in (another program on
        # that port, a missing token), retrying for minutes: give up after
        # JOIN_TIMEOUT, leaving its attempt to a daemon thread.
        os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(round(CONNECT_TIMEOUT)))
        failure: list[BaseException] = []

        def join() -> None:
            try:
                self.ray.init(address=address, **options)
            except BaseException as error:  # Ray's own kinds: connection, authentication...
                failure.append(error)

        joining = threading.Thread(target=join, name="ray-join", daemon=True)
        quiet = _Without("SIGTERM handler is not set")  # Ray's, for not being the main thread
        logging.getLogger("ray._private.worker").addFilter(quiet)
        joining.start()
        joining.join(JOIN_TIMEOUT)
        logging.getLogger("ray._private.worker").removeFilter(quiet)
        if joining.is_alive():
            raise GameError(
                f"cannot join the Ray cluster at {address}: it accepts connections but "
                f"did not let this program in within {JOIN_TIMEOUT:g} s (is it Ray, of the "
                "same version? with token authentication, RAY_AUTH_MODE=token)"
            )
        if failure:
            raise GameError(f"cannot join the Ray cluster at {address}: {failure[0]}") from None

    def __enter__(self) -> RayCluster:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()

    def cpus(self) -> int:
        """The CPUs of the cluster: how many matches it plays at once."""
        return int(self.ray.cluster_resources().get("CPU", 0))

    def run(
        self, play: Play, tasks: Sequence[Task], on_result: OnResult = ignore_result
    ) -> list[Any]:
        """Play the tasks on the cluster; their results in the order of `tasks`."""
        ray = self.ray
        shared: dict[int, Any] = {}  # id(setup) -> its object reference, sent once
        numbers = {}
        for number, (setup, index) in enumerate(tasks):
            if id(setup) not in shared:
                shared[id(setup)] = ray.put(setup)
            numbers[self._task.remote(play, shared[id(setup)], index)] = number
        results: list[Any] = [None] * len(tasks)
        pending = list(numbers)
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=len(pending), timeout=WAIT_SECONDS)
                for ref, result in zip(ready, ray.get(ready), strict=True):
                    results[numbers[ref]] = result
                    on_result(numbers[ref], result)
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            if pending:
                ray.wait(pending, num_returns=len(pending), timeout=CANCEL_SECONDS)
            raise
        return results
