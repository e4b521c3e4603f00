"""The search's decisions for a seed stay what they were: each case of
`search_fingerprints` (a game, a configuration of the search, a seed) gives
the fingerprint stored in tests/data/search_fingerprints.json.  A change meant
only to make the search faster must keep them all; one meant to change the
search regenerates them (``python tests/search_fingerprints.py --write``) and
says why in its commit."""

from __future__ import annotations

import json
import random
import shutil

import pytest
from ggp.gdl.native import build
from ggp.player.search.tree import shuffle
from search_fingerprints import CASES, FINGERPRINTS, GAMES, fingerprint, load

try:
    import cffi  # noqa: F401

    NATIVE_MISSING = None if shutil.which("cc") else "no C compiler (cc)"
except ImportError:
    NATIVE_MISSING = "cffi is not installed"

KNOWN = json.loads(FINGERPRINTS.read_text())


@pytest.fixture(scope="module", autouse=True)
def library_cache(tmp_path_factory: pytest.TempPathFactory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(build.CACHE_ENV, str(tmp_path_factory.mktemp("native")))
        yield


@pytest.mark.parametrize("name", list(CASES))
def test_seeded_searches_decide_as_before(name: str) -> None:
    if GAMES[name][1] == "native" and NATIVE_MISSING is not None:
        pytest.skip(NATIVE_MISSING)
    game = load(name)
    changed = [
        config for config in CASES[name] if fingerprint(game, config) != KNOWN[f"{name}/{config}"]
    ]
    assert not changed, f"{name}: the search decides otherwise with {', '.join(changed)}"


def test_every_case_has_a_stored_fingerprint() -> None:
    cases = {f"{name}/{config}" for name, configs in CASES.items() for config in configs}
    assert cases == set(KNOWN)


def test_the_trees_shuffle_draws_as_randoms_own() -> None:
    for size in (0, 1, 2, 7, 33, 81):
        mine, theirs = random.Random(size), random.Random(size)
        items = list(range(size))
        expected = list(items)
        shuffle(items, mine)
        theirs.shuffle(expected)
        assert items == expected
        assert mine.random() == theirs.random()
