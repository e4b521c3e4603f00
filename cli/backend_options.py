"""The options ``ggp tournament`` and ``ggp study`` share: where the matches are played."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ggp.games.base import GameError

if TYPE_CHECKING:
    from ggp.server.ray_runner import RayCluster


def add_backend_options(parser: argparse.ArgumentParser) -> None:
    """Add --jobs and --ray to `parser`."""
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="matches played at once on this machine: in worker processes when all players "
        "are in-process, in one event loop when one is remote (default: %(default)s)",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help="play the matches as tasks on a Ray cluster, one CPU each: HOST:PORT of its "
        "head (as 'ray start' prints it), ray://HOST:PORT (Ray Client), or 'auto' (the "
        "cluster started on this machine, or else a local Ray instance of --jobs CPUs); "
        "needs the extra: pip install 'ggp-player[cluster]'",
    )


def check_jobs(args: argparse.Namespace) -> None:
    if args.jobs < 1:
        raise GameError(f"--jobs must be at least 1, got {args.jobs}")


@contextlib.contextmanager
def cluster_of(args: argparse.Namespace) -> Iterator[RayCluster | None]:
    """The Ray cluster --ray names, connected (None without --ray); disconnected afterwards."""
    if args.ray is None:
        yield None
        return
    from ggp.server.ray_runner import RayCluster  # Ray is an optional extra

    with RayCluster(args.ray, local_cpus=args.jobs) as cluster:
        yield cluster
