"""The dependency structure of a game description: clauses, strata, phases.

- A **clause** is a rule with its ``or`` literals multiplied out: a head and a
  conjunction of sentences, ``(not sentence)`` and ``(distinct a b)``.
- The **relation graph** has an edge from each head relation to every
  relation in its body.  The **phase** of a relation says what it depends
  on: `STATIC` relations follow from the rules alone and are computed once
  per game, `STATE` relations depend on ``true`` (once per state), `MOVE`
  relations on ``does`` (once per joint move).
- Evaluation follows the **node graph**, which is the relation graph except
  for relations that depend on their own negation (``(<= (goal ?r 0) (role
  ?r) (not (goal ?r 100)))``, in several public games).  Such a relation is
  split into parts by the arguments that are ground in the head of every
  rule defining it (``goal`` by its value: ``goal/0``, ``goal/100``), which
  often removes the cycle through ``not``: the game is then stratified part
  by part, a finer condition than the specification's but just as sound.
  `Strata.notes` says when this was needed.
- A **stratum** is one strongly connected component of the node graph: what
  must be computed together.  `Strata.order` lists them so that every
  stratum comes after those it depends on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import product

from ggp.gdl.syntax.scc import strongly_connected_components as components_of
from ggp.gdl.syntax.terms import Rule, Term, arguments, is_ground, relation, to_kif

STATIC, STATE, MOVE = 0, 1, 2
PHASE_NAMES = ("static", "state", "move")
INPUT_RELATIONS = {"true": STATE, "does": MOVE}
"""Relations given from outside: the state's facts and the joint move."""

Node = str | tuple[str, tuple[Term, ...]]
"""A relation name, or (name, values) for the part of a split relation."""


@dataclass(frozen=True)
class Clause:
    """One conjunctive rule: `body` holds sentences, not and distinct literals."""

    head: Term
    body: tuple[Term, ...]
    rule: Rule


def _alternatives(literal: Term) -> Iterator[tuple[Term, ...]]:
    """The alternatives of one literal: one per disjunct of an ``or``."""
    if type(literal) is tuple and literal[0] == "or":
        for disjunct in literal[1:]:
            yield from _alternatives(disjunct)
    else:
        yield (literal,)


def alternative_count(literal: Term) -> int:
    """How many alternatives `literal` has (`_alternatives`), counted without listing them."""
    if type(literal) is tuple and literal[0] == "or":
        return sum(alternative_count(disjunct) for disjunct in literal[1:])
    return 1


def clauses(rule: Rule) -> list[Clause]:
    """The clauses of a rule: the body's ``or`` literals multiplied out."""
    choices = [list(_alternatives(literal)) for literal in rule.body]
    return [
        Clause(rule.head, tuple(lit for part in choice for lit in part), rule)
        for choice in product(*choices)
    ]


def body_sentences(literals: Iterable[Term]) -> Iterator[tuple[Term, bool]]:
    """Every sentence in `literals` (through ``or`` and ``not``), with its sign."""
    for literal in literals:
        kind = literal[0] if type(literal) is tuple else None
        if kind == "or":
            yield from body_sentences(literal[1:])
        elif kind == "not":
            yield literal[1], False
        elif kind != "distinct":
            yield literal, True


def node_name(node: Node) -> str:
    """How a node is shown: ``goal`` or ``goal[_ 100]`` for a part."""
    if type(node) is str:
        return node
    name, values = node
    return f"{name}[{' '.join(to_kif(v) for v in values)}]"


@dataclass
class Stratum:
    """Nodes computed together, the clauses defining them, and their phase."""

    index: int
    nodes: frozenset[Node]
    relations: frozenset[str]
    clauses: tuple[Clause, ...]
    recursive: bool
    phase: int = STATIC


@dataclass
class Strata:
    """The dependency graphs of a rule set and its evaluation order."""

    rules: list[Rule]
    clauses: list[Clause] = field(default_factory=list)
    edges: dict[str, set[str]] = field(default_factory=dict)
    """Relation graph: head relation -> relations in its bodies."""
    phase: dict[str, int] = field(default_factory=dict)
    split: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Split relations -> the argument positions their parts are told apart by."""
    parts: dict[str, list[Node]] = field(default_factory=dict)
    node_edges: dict[Node, set[Node]] = field(default_factory=dict)
    negative_node_edges: dict[Node, set[Node]] = field(default_factory=dict)
    order: list[Stratum] = field(default_factory=list)
    stratum_of: dict[Node, Stratum] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    demand: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Relations computed on demand (`ggp.gdl.interpreter.magic`) -> bound argument positions."""

    @classmethod
    def of(cls, rules: list[Rule], rewritten: list[Clause] | None = None) -> Strata:
        """The strata of `rules`, or of `rewritten`, clauses derived from them."""
        strata = cls(rules)
        if rewritten is None:
            rewritten = [clause for rule in rules for clause in clauses(rule)]
        strata.clauses = rewritten
        for clause in rewritten:
            targets = strata.edges.setdefault(relation(clause.head), set())
            for sentence, _ in body_sentences(clause.body):
                targets.add(relation(sentence))
                strata.edges.setdefault(relation(sentence), set())
        strata._assign_phases()
        strata._build_node_graph()
        self_negating = strata._self_negating_relations()
        if self_negating:
            strata._split(self_negating)
            strata._build_node_graph()
        strata._order_components()
        return strata

    # ------------------------------------------------------------ relations

    def _assign_phases(self) -> None:
        self.phase = dict(INPUT_RELATIONS)
        for component in strongly_connected_components(self.edges):
            phase = max(
                (
                    self.phase.get(dep, STATIC)
                    for name in component
                    for dep in self.edges[name]
                    if dep not in component
                ),
                default=STATIC,
            )
            phase = max([phase, *(INPUT_RELATIONS.get(n, STATIC) for n in component)])
            for name in component:
                self.phase[name] = phase

    def reachable(self, start: str) -> set[str]:
        """The relations `start` depends on, directly or not (itself included)."""
        seen = {start}
        stack = [start]
        while stack:
            for dep in self.edges.get(stack.pop(), ()):
                if dep not in seen:
                    seen.add(dep)
                    stack.append(dep)
        return seen

    def path(self, start: str, goal: set[str]) -> list[str]:
        """A shortest relation-graph path from `start` to a relation in `goal`, or []."""
        previous: dict[str, str | None] = {start: None}
        frontier = [start]
        while frontier:
            following = []
            for name in frontier:
                for dep in sorted(self.edges.get(name, ())):
                    if dep in goal:
                        path = [dep, name]
                        while previous[path[-1]] is not None:
                            path.append(previous[path[-1]])
                        return path[::-1]
                    if dep not in previous:
                        previous[dep] = name
                        following.append(dep)
            frontier = following
        return []

    # ------------------------------------------------------------ nodes

    def _self_negating_relations(self) -> set[str]:
        """Relations in a cycle of the node graph that goes through a ``not``."""
        component_of = {
            node: i
            for i, component in enumerate(strongly_connected_components(self.node_edges))
            for node in component
        }
        found = set()
        for node, negated in self.negative_node_edges.items():
            for other in negated:
                if component_of[node] == component_of[other]:
                    found.update(
                        _relation_of(n)
                        for n in self.node_edges
                        if component_of[n] == component_of[node]
                    )
        return found

    def _split(self, names: set[str]) -> None:
        for name in sorted(names):
            heads = [arguments(c.head) for c in self.clauses if relation(c.head) == name]
            if not heads:
                continue
            positions = tuple(
                i for i in range(len(heads[0])) if all(is_ground(args[i]) for args in heads)
            )
            values = {tuple(args[i] for i in positions) for args in heads}
            if positions and len(values) > 1:
                self.split[name] = positions
                shown = ", ".join(str(i + 1) for i in positions)
                plural = "s" if len(positions) > 1 else ""
                self.notes.append(
                    f"{name} depends on its own negation; it is stratified by the values "
                    f"of its argument{plural} {shown} ({len(values)} parts) instead of as a whole"
                )

    def nodes_of(self, sentence: Term) -> list[Node]:
        """The nodes a sentence may be a fact of (none for an undefined part)."""
        name = relation(sentence)
        positions = self.split.get(name)
        if positions is None:
            return [name]
        args = arguments(sentence)
        return [
            part
            for part in self.parts[name]
            if all(
                not is_ground(args[i]) or args[i] == value
                for i, value in zip(positions, part[1], strict=True)
            )
        ]

    def head_node(self, head: Term) -> Node:
        name = relation(head)
        positions = self.split.get(name)
        if positions is None:
            return name
        return (name, tuple(arguments(head)[i] for i in positions))

    def _build_node_graph(self) -> None:
        self.parts = {}
        for clause in self.clauses:
            node = self.head_node(clause.head)
            parts = self.parts.setdefault(relation(clause.head), [])
            if node not in parts:
                parts.append(node)
        self.node_edges = {}
        self.negative_node_edges = {}
        for clause in self.clauses:
            node = self.head_node(clause.head)
            targets = self.node_edges.setdefault(node, set())
            negative = self.negative_node_edges.setdefault(node, set())
            for sentence, positive in body_sentences(clause.body):
                for dep in self.nodes_of(sentence):
                    targets.add(dep)
                    self.node_edges.setdefault(dep, set())
                    if not positive:
                        negative.add(dep)

    def _order_components(self) -> None:
        by_node: dict[Node, list[Clause]] = {}
        for clause in self.clauses:
            by_node.setdefault(self.head_node(clause.head), []).append(clause)
        for component in strongly_connected_components(self.node_edges):
            nodes = frozenset(component)
            if not any(node in by_node for node in nodes):
                continue  # the inputs true/does, and relations no rule defines
            relations = frozenset(_relation_of(node) for node in nodes)
            stratum = Stratum(
                index=len(self.order),
                nodes=nodes,
                relations=relations,
                clauses=tuple(c for node in component for c in by_node.get(node, ())),
                recursive=len(nodes) > 1 or any(n in self.node_edges[n] for n in nodes),
                phase=max(self.phase[name] for name in relations),
            )
            self.order.append(stratum)
            for node in nodes:
                self.stratum_of[node] = stratum

    def in_cycle(self, head: Term, sentence: Term) -> bool:
        """Whether `sentence` is in a recursive stratum with the rule head `head`."""
        stratum = self.stratum_of.get(self.head_node(head))
        return (
            stratum is not None
            and stratum.recursive
            and any(node in stratum.nodes for node in self.nodes_of(sentence))
        )

    def negated_in_cycle(self, clause: Clause) -> list[Term]:
        """The ``not`` literals of `clause` that are in a cycle with its head."""
        node = self.head_node(clause.head)
        stratum = self.stratum_of.get(node)
        return [
            literal
            for literal in clause.body
            if type(literal) is tuple
            and literal[0] == "not"
            and stratum is not None
            and any(dep in stratum.nodes for dep in self.nodes_of(literal[1]))
        ]

    def unstratified(self) -> set[str]:
        """The relations of the strata where a relation depends on its own negation."""
        return {
            name
            for clause in self.clauses
            if self.negated_in_cycle(clause)
            for name in self.stratum_of[self.head_node(clause.head)].relations
        }

    def needed(self, name: str) -> list[Stratum]:
        """The strata to compute, in order, before relation `name` is complete."""
        seen: set[Node] = set()
        stack: list[Node] = list(self.parts.get(name, [name]))
        while stack:
            node = stack.pop()
            if node not in seen:
                seen.add(node)
                stack.extend(self.node_edges.get(node, ()))
        indexes = {self.stratum_of[n].index for n in seen if n in self.stratum_of}
        return [self.order[i] for i in sorted(indexes)]


def _relation_of(node: Node) -> str:
    return node if type(node) is str else node[0]


def strongly_connected_components(graph: dict) -> list[list]:
    """The components of `graph` (node -> the nodes it points to), each after
    those it points to: with edges from a rule's head to its body, that is
    evaluation order.  Nodes are numbered in sorted order (by their text), so
    the result is deterministic.
    """
    nodes = sorted(set(graph).union(*graph.values()), key=_sort_key)
    number = {node: i for i, node in enumerate(nodes)}
    successors = [sorted(number[child] for child in graph.get(node, ())) for node in nodes]
    return [[nodes[i] for i in component] for component in components_of(successors)]


def _sort_key(node: Node) -> str:
    return node if type(node) is str else node_name(node)
