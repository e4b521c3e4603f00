"""Stores of derived facts, with the indexes that joins look facts up in.

A relation's facts are tuples of their arguments (``(cell 1 1 b)`` is stored
as ``("1", "1", "b")`` under ``cell``; ``terminal`` as ``()``).  A `Layer`
holds the facts of one phase: the game's static facts, one state's facts
(``true`` and what follows from it) or one joint move's (``does`` and
``next``).

Joins read facts through **patterns**.  A literal such as
``(true (cell ?x 2 ?p))`` has a *skeleton* (the compound terms it requires:
``true`` whose argument is ``cell`` of three arguments) and *leaves* (``?x``,
``2``, ``?p``).  Every fact that fits the skeleton is flattened once into
the tuple of its values at the leaves, and an `IndexSpec` says which leaf
positions are looked up (the key: constants and variables bound earlier in
the join), which must be equal (a variable repeated in the literal) and
which are projected out (variables the literal binds).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from operator import itemgetter
from typing import Any, NamedTuple

Args = tuple
"""The arguments of one fact of a relation."""

Skeleton = tuple
"""Per argument: None for a leaf, or (functor, sub-skeleton) for a compound."""


class IndexSpec(NamedTuple):
    """How a literal looks facts up: see the module docstring."""

    relation: str
    skeleton: Skeleton
    key: tuple[int, ...]
    equal: tuple[tuple[int, int], ...]
    project: tuple[int, ...]


def getter(positions: tuple[int, ...]) -> Callable[[tuple], Any]:
    """A function picking `positions` out of a tuple: a value for one, a tuple for more."""
    return itemgetter(*positions)


def tuple_getter(positions: tuple[int, ...]) -> Callable[[tuple], tuple]:
    """A function picking `positions` out of a tuple, always as a tuple."""
    if not positions:
        return lambda row: ()
    if len(positions) == 1:
        (position,) = positions
        return lambda row: (row[position],)
    return itemgetter(*positions)


def flatten(args: Args, skeleton: Skeleton) -> tuple | None:
    """The leaf values of `args` under `skeleton`, or None if they do not fit it."""
    out: list = []
    for arg, shape in zip(args, skeleton, strict=True):
        if shape is None:
            out.append(arg)
            continue
        functor, inner = shape
        if type(arg) is not tuple or len(arg) != len(inner) + 1 or arg[0] != functor:
            return None
        leaves = flatten(arg[1:], inner)
        if leaves is None:
            return None
        out.extend(leaves)
    return tuple(out)


@cache
def is_flat(skeleton: Skeleton) -> bool:
    """Whether every argument is a leaf (the facts are their own rows)."""
    return all(shape is None for shape in skeleton)


@cache
def _grouped_functor(skeleton: Skeleton) -> tuple[str, int] | None:
    """For ``((f, (None, ...)),)``, one argument ``(f leaf...)``: f and its length."""
    if len(skeleton) == 1 and skeleton[0] is not None and is_flat(skeleton[0][1]):
        functor, inner = skeleton[0]
        return functor, len(inner) + 1
    return None


@cache
def _reads_rows_whole(spec: IndexSpec) -> bool:
    """Whether the spec has no key and no equality and projects every leaf in order."""
    return not spec.key and not spec.equal and spec.project == tuple(range(len(spec.project)))


@cache
def _spec_functions(spec: IndexSpec) -> tuple[Callable | None, Callable]:
    """The key and projection functions of an index spec."""
    return (getter(spec.key) if spec.key else None), tuple_getter(spec.project)


def build_index(spec: IndexSpec, rows: Iterable[tuple]) -> Any:
    """An index over flattened `rows`:

    - key and projection: dict key -> list of projected tuples;
    - key only: set of keys (a membership test);
    - projection only: list of projected tuples;
    - neither: list of () per fitting fact (true when any fits).
    """
    index: Any = {} if spec.key and spec.project else set() if spec.key else []
    insert_rows(spec, index, rows)
    return index


def insert_rows(spec: IndexSpec, index: Any, rows: Iterable[tuple]) -> None:
    """Add flattened `rows` to an index made by `build_index`."""
    if spec.equal:
        equal = spec.equal
        rows = [row for row in rows if all(row[i] == row[j] for i, j in equal)]
    key, project = _spec_functions(spec)
    if key is None:
        index.extend(map(project, rows))
    elif spec.project:
        for row in rows:
            k = key(row)
            bucket = index.get(k)
            if bucket is None:
                index[k] = [project(row)]
            else:
                bucket.append(project(row))
    else:
        index.update(map(key, rows))


class Layer:
    """The facts of one phase and the flattened rows and indexes built on them.

    `done` holds the indexes of the strata already computed into this layer.
    Facts are added with `add` (or `extend`), which keeps every existing index
    up to date (recursive strata read their own relations while they grow).
    """

    __slots__ = ("facts", "done", "_rows", "_groups", "_indexes", "_skeletons", "_specs")

    def __init__(self, facts: dict[str, set[Args]] | None = None) -> None:
        self.facts: dict[str, set[Args]] = facts if facts is not None else {}
        self.done: set[int] = set()
        self._rows: dict[tuple[str, Skeleton], list[tuple]] = {}
        self._groups: dict[str, dict[tuple[str, int], list[tuple]]] = {}
        self._indexes: dict[IndexSpec, Any] = {}
        self._skeletons: dict[str, list[Skeleton]] = {}
        self._specs: dict[str, list[IndexSpec]] = {}

    def rows(self, relation: str, skeleton: Skeleton) -> list[tuple] | set[Args]:
        """The facts of `relation` that fit `skeleton`, flattened."""
        rows = self._rows.get((relation, skeleton))
        if rows is not None:
            return rows
        if is_flat(skeleton):
            return self.facts.get(relation, ())
        grouped = _grouped_functor(skeleton)
        if grouped is not None:
            rows = self._group(relation).pop(grouped, [])
        else:
            rows = flatten_all(self.facts.get(relation, ()), skeleton)
        self._rows[(relation, skeleton)] = rows
        self._skeletons.setdefault(relation, []).append(skeleton)
        return rows

    def _group(self, relation: str) -> dict[tuple[str, int], list[tuple]]:
        """The one-argument facts of `relation` by functor: ``(cell 1 1 b)`` under cell/4."""
        groups = self._groups.get(relation)
        if groups is None:
            groups = self._groups[relation] = {}
            for (arg,) in self.facts.get(relation, ()):
                if type(arg) is tuple:
                    group = groups.get((arg[0], len(arg)))
                    if group is None:
                        groups[(arg[0], len(arg))] = [arg[1:]]
                    else:
                        group.append(arg[1:])
        return groups

    def index(self, spec: IndexSpec) -> Any:
        """The index `spec` on this layer's facts, built on first use.

        A spec that only reads every row whole is served by the rows themselves
        (which `add` keeps up to date).
        """
        index = self._indexes.get(spec)
        if index is None:
            rows = self.rows(spec.relation, spec.skeleton)
            if _reads_rows_whole(spec):
                if not isinstance(rows, list):
                    rows = self._rows[(spec.relation, spec.skeleton)] = list(rows)
                    self._skeletons.setdefault(spec.relation, []).append(spec.skeleton)
                index = rows
            else:
                index = build_index(spec, rows)
                self._specs.setdefault(spec.relation, []).append(spec)
            self._indexes[spec] = index
        return index

    def extend(self, relation: str, new: set[Args]) -> None:
        """Add facts of `relation` (the set may be kept: the caller must not change it)."""
        if (
            relation not in self.facts
            and relation not in self._specs
            and relation not in self._skeletons
        ):
            self.facts[relation] = new
            self._groups.pop(relation, None)
        elif new:
            self.add(relation, new)

    def add(self, relation: str, new: Iterable[Args]) -> list[Args]:
        """Add facts of `relation`; return those that were not there yet."""
        known = self.facts.setdefault(relation, set())
        fresh = [args for args in new if args not in known]
        if not fresh:
            return fresh
        known.update(fresh)
        self._groups.pop(relation, None)
        flattened: dict[Skeleton, list[tuple]] = {}
        for skeleton in self._skeletons.get(relation, ()):
            flattened[skeleton] = flatten_all(fresh, skeleton)
            self._rows[(relation, skeleton)].extend(flattened[skeleton])
        for spec in self._specs.get(relation, ()):
            rows = fresh if is_flat(spec.skeleton) else flattened[spec.skeleton]
            insert_rows(spec, self._indexes[spec], rows)
        return fresh

    def statistics(self, relation: str, skeleton: Skeleton) -> tuple[int, list[int]]:
        """How many facts fit `skeleton`, and how many distinct values each leaf has."""
        rows = self.rows(relation, skeleton)
        if not rows:
            return 0, []
        width = len(next(iter(rows)))
        return len(rows), [len({row[i] for row in rows}) for i in range(width)]


def flatten_all(facts: Iterable[Args], skeleton: Skeleton) -> list[tuple]:
    """The facts that fit `skeleton`, flattened (see `flatten`)."""
    grouped = _grouped_functor(skeleton)
    if grouped is not None:
        functor, length = grouped
        return [
            arg[1:]
            for (arg,) in facts
            if type(arg) is tuple and arg[0] == functor and len(arg) == length
        ]
    rows = []
    for args in facts:
        row = flatten(args, skeleton)
        if row is not None:
            rows.append(row)
    return rows
