"""Studies and tournaments on Ray give the results of local processes; --ray's errors.

Ray is started once for the module (it takes seconds), with two CPUs.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from ggp.cli import main
from ggp.games.registry import GDL_DIR
from ggp.server.tournament import run_tournament

STUDY = [
    "study", "tictactoe", "--vary", "iterations=2,16", "--against", "random",
    "--games", "6", "--swap", "--seed", "3",
]  # fmt: skip


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="Ray is not installed (extra 'cluster')")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def _matches(folder) -> list[dict]:
    """The matches of a study without their ids (which name the study)."""
    matches = json.loads((folder / "results.json").read_text())["matches"]
    return [{key: value for key, value in m.items() if key != "match_id"} for m in matches]


def test_a_study_and_a_tournament_on_ray_give_the_results_of_local_processes(
    local_ray, tmp_path, capsys, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # relative folders: Ray's workers run elsewhere
    assert main([*STUDY, "--out", "local", "--jobs", "2"]) == 0
    assert main([*STUDY, "--out", "ray", "--ray", "auto"]) == 0
    assert local_ray.is_initialized()  # the test's connection, left open
    assert _matches(tmp_path / "ray") == _matches(tmp_path / "local")
    summary = (tmp_path / "local" / "summary.csv").read_text()
    assert (tmp_path / "ray" / "summary.csv").read_text() == summary
    assert len(list((tmp_path / "ray" / "logs").glob("*.json"))) == 12

    from ggp.server.ray_runner import RayCluster

    agents = ["mcts:iterations=10", "random"]
    local = run_tournament("tictactoe", agents, games=6, swap=True, seed=4, jobs=2)
    with RayCluster("auto") as cluster:
        assert cluster.cpus() == 2
        remote = run_tournament("tictactoe", agents, games=6, swap=True, seed=4, cluster=cluster)
    assert remote == local
    capsys.readouterr()
    args = ["tournament", "tictactoe", *agents, "--games", "4", "--seed", "4", "--ray", "auto"]
    assert main([*args, "--log-dir", "logs"]) == 0
    assert "tictactoe: 4 matches, seed 4" in capsys.readouterr().out
    assert len(list((tmp_path / "logs").glob("*.json"))) == 4
    shutil.copy(GDL_DIR / "tictactoe.kif", tmp_path / "rules.kif")  # a path relative to here
    args = ["tournament", "rules.kif", "random", "legal", "--games", "2", "--ray", "auto"]
    assert main([*args, "--log-dir", "kif-logs"]) == 0
    assert len(list((tmp_path / "kif-logs").glob("*.json"))) == 2


def test_ctrl_c_cancels_the_matches_left_and_frees_the_cluster(local_ray, tmp_path) -> None:
    from ggp.server.ray_runner import RayCluster
    from ggp.server.tournament import TournamentSetup, play_match_of

    specs = ("mcts:iterations=50", "mcts:iterations=50")
    setup = TournamentSetup("connect_four", False, specs, 1, True, None, 1.0, str(tmp_path), "i")
    heard = []

    def interrupt(number, result) -> None:
        heard.append(number)
        raise KeyboardInterrupt

    with RayCluster("auto") as cluster, pytest.raises(KeyboardInterrupt):
        cluster.run(play_match_of, [(setup, index) for index in range(40)], interrupt)
    assert len(heard) == 1
    deadline = time.monotonic() + 60
    while local_ray.available_resources().get("CPU", 0) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert local_ray.available_resources().get("CPU", 0) == 2  # nothing left running
    assert len(list(tmp_path.glob("*.json"))) < 40  # and the rest never started


async def _dies_once(setup, index: int):
    """Match 1's first attempt ends its worker process, as a crash or a kill would."""
    from ggp.server.tournament import play_match_of

    marker = Path(setup.log_dir) / f"died-{index}"
    if index == 1 and not marker.exists():
        marker.touch()
        os._exit(1)
    return await play_match_of(setup, index)


def test_the_match_of_a_lost_worker_is_played_again(local_ray, tmp_path) -> None:
    from ggp.server.ray_runner import RayCluster
    from ggp.server.runner import in_event_loop
    from ggp.server.tournament import TournamentSetup, play_match_of
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # Ray's workers cannot import it
    specs = ("mcts:iterations=10", "random")
    setup = TournamentSetup("tictactoe", False, specs, 1, True, None, 1.0, str(tmp_path), "l")
    tasks = [(setup, index) for index in range(3)]
    with RayCluster("auto") as cluster:
        results = cluster.run(_dies_once, tasks)
    assert (tmp_path / "died-1").exists()
    assert results == in_event_loop(play_match_of, tasks, 1)


def test_an_unreachable_cluster_is_a_clear_error_and_nothing_is_written(tmp_path, capsys):
    pytest.importorskip("ray", reason="Ray is not installed (extra 'cluster')")
    out = tmp_path / "study"
    started = time.monotonic()
    assert main([*STUDY, "--out", str(out), "--ray", "127.0.0.1:1"]) == 2
    assert "cannot reach the Ray cluster at 127.0.0.1:1" in capsys.readouterr().err
    assert time.monotonic() - started < 60  # Ray alone would retry for minutes
    assert not out.exists()
    assert main([*STUDY, "--out", str(out), "--ray", "nowhere"]) == 2
    assert "expected HOST:PORT" in capsys.readouterr().err


def test_without_ray_the_ray_option_says_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails
    assert main([*STUDY, "--out", str(tmp_path / "s"), "--ray", "auto"]) == 2
    assert "pip install 'ggp-player[cluster]'" in capsys.readouterr().err
    args = ["tournament", "tictactoe", "random", "random", "--ray", "auto"]
    assert main(args) == 2
    assert "pip install 'ggp-player[cluster]'" in capsys.readouterr().err
