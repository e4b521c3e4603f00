"""The ground rules of a game as a network of propositions over integer indexes.

A state is a set of **base** propositions (the ``true`` terms), numbered in
the order of their text, so that it is one Python integer with bit ``b`` set
when base term ``b`` holds.  A joint move is a set of **input** propositions
(``does`` facts), numbered likewise.  Every other ground sentence that a
ground rule defines is a **node**, with a list of bodies (it holds when one
body holds); a body is a tuple of literals ``(kind, index, positive)``, the
kind being `BASE`, `INPUT` or `NODE`.

Nodes are kept in a topological order of their dependencies, grouped in
strongly connected components (recursive rules such as a path through the
board give cyclic components).  `fold` simplifies the bodies of the nodes a
query needs, with constants propagated and, when a joint move is known, the
``does`` literals replaced by their values: this is what the generated code
(`ggp.gdl.compiled.codegen`) is written from.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ggp.gdl.network.grounding import GroundingError, GroundProgram
from ggp.gdl.syntax.scc import strongly_connected_components
from ggp.gdl.syntax.terms import Term, relation, to_kif

BASE, INPUT, NODE = 0, 1, 2

Literal = tuple[int, int, bool]
Body = tuple[Literal, ...]
Folded = bool | list[Body]
"""A node after folding: a constant, or its remaining bodies (none is false)."""


@dataclass
class Network:
    """Ground rules over integer indexes; see the module docstring."""

    base: list[Term]
    inputs: list[tuple[Term, Term]]
    nodes: list[Term] = field(default_factory=list)
    bodies: list[list[Body]] = field(default_factory=list)
    components: list[list[int]] = field(default_factory=list)
    """Nodes in strongly connected components, in evaluation order."""
    component_of: list[int] = field(default_factory=list)
    cyclic: list[bool] = field(default_factory=list)
    """Per component: whether its nodes depend on each other."""
    legal: list[list[tuple[int, int]]] = field(default_factory=list)
    """Per role: (node, input) of each possible legal move, in order of the move text."""
    goals: list[list[tuple[int, Term]]] = field(default_factory=list)
    """Per role: (node, value) of each possible goal."""
    terminal: int | None = None
    sees: list[list[tuple[int, Term]]] = field(default_factory=list)
    """Per role: (node, percept) of each possible ``sees`` sentence (GDL-II), in order
    of the percept's text."""
    next: list[int | None] = field(default_factory=list)
    """Per base proposition: the node of its ``next`` sentence, if any."""
    init: int = 0
    """The initial state's bits."""

    def node_count(self) -> int:
        return len(self.nodes)

    def rule_count(self) -> int:
        return sum(len(bodies) for bodies in self.bodies)

    def literal_count(self, components: Iterable[int] | None = None) -> int:
        """Literals in all bodies, plus one per body and per node: the size of the network
        (of the nodes of `components` only, if given)."""
        if components is None:
            nodes: Iterable[int] = range(len(self.bodies))
        else:
            nodes = [node for c in components for node in self.components[c]]
        bodies = self.bodies
        return sum(1 + sum(len(body) + 1 for body in bodies[node]) for node in nodes)


PLAYED = ("legal", "goal", "terminal", "next", "sees")
"""The relations read from outside the rules, whose static facts are nodes too."""


def build_network(program: GroundProgram, roles: Sequence[Term]) -> Network:
    """The network of a ground program, for the roles in their order.

    Nodes are numbered in the order of their text and each node's bodies are
    sorted, so that the same rules give the same network in every process
    (the order of the ground rules follows Python's hashing of strings,
    which changes from one process to the next; native code is cached by
    the text of its source).
    """
    network = Network(program.base, program.inputs)
    base_index = {term: i for i, term in enumerate(program.base)}
    input_index = {move: i for i, move in enumerate(program.inputs)}
    sentences = {head for head, _, _ in program.rules}
    for _, positive, negative in program.rules:
        sentences.update(s for s in (*positive, *negative) if relation(s) not in ("true", "does"))
    for name in PLAYED:
        sentences.update((name, *args) if args else name for args in program.static.get(name, ()))
    network.nodes = sorted(sentences, key=repr)  # repr: distinct for distinct terms
    node_index: dict[Term, int] = {sentence: i for i, sentence in enumerate(network.nodes)}
    bodies: list[set[Body]] = [set() for _ in network.nodes]

    def literal(sentence: Term, positive: bool) -> Literal:
        name = relation(sentence)
        if name == "true":
            return (BASE, base_index[sentence[1]], positive)
        if name == "does":
            return (INPUT, input_index[(sentence[1], sentence[2])], positive)
        return (NODE, node_index[sentence], positive)

    for head, positive, negative in program.rules:
        body = tuple(
            dict.fromkeys(
                [literal(s, True) for s in positive] + [literal(s, False) for s in negative]
            )
        )
        bodies[node_index[head]].add(body)
    for name in PLAYED:
        for args in program.static.get(name, ()):  # static: true in every state
            bodies[node_index[(name, *args) if args else name]].add(())
    network.bodies = [sorted(found) for found in bodies]
    _order(network)
    role_index = {role: i for i, role in enumerate(roles)}
    network.legal = [[] for _ in roles]
    network.goals = [[] for _ in roles]
    network.sees = [[] for _ in roles]
    for sentence, i in node_index.items():
        name = relation(sentence)
        if name == "legal" and sentence[1] in role_index:
            move = input_index[(sentence[1], sentence[2])]  # relaxed does = relaxed legal
            network.legal[role_index[sentence[1]]].append((i, move))
        elif name == "goal" and sentence[1] in role_index:
            network.goals[role_index[sentence[1]]].append((i, sentence[2]))
        elif name == "sees" and sentence[1] in role_index:
            network.sees[role_index[sentence[1]]].append((i, sentence[2]))
        elif sentence == "terminal":
            network.terminal = i
    for moves in network.legal:
        moves.sort(key=lambda item: to_kif(network.inputs[item[1]][1]))
    for percepts in network.sees:
        percepts.sort(key=lambda item: to_kif(item[1]))
    network.next = [node_index.get(("next", term)) for term in program.base]
    for (term,) in program.static.get("init", ()):
        network.init |= 1 << base_index[term]
    return network


def _order(network: Network) -> None:
    """Strongly connected components of the node graph, dependencies first (Tarjan)."""
    count = len(network.nodes)
    deps = [
        sorted({index for body in bodies for kind, index, _ in body if kind == NODE})
        for bodies in network.bodies
    ]
    component_of = [-1] * count
    for component in strongly_connected_components(deps):
        for member in component:
            component_of[member] = len(network.components)
        network.cyclic.append(len(component) > 1 or component[0] in deps[component[0]])
        network.components.append(component)
    network.component_of = component_of
    for component, cyclic in zip(network.components, network.cyclic, strict=True):
        if not cyclic:
            continue
        members = set(component)
        for member in component:
            for body in network.bodies[member]:
                for kind, other, positive in body:
                    if kind == NODE and not positive and other in members:
                        raise GroundingError(
                            f"{to_kif(network.nodes[member])} depends on its own negation "
                            "in the ground rules"
                        )


def cone(network: Network, targets: Iterable[int]) -> list[int]:
    """The components (indexes) the `targets` nodes need, in evaluation order."""
    needed: set[int] = set()
    stack = [network.component_of[t] for t in targets]
    while stack:
        component = stack.pop()
        if component in needed:
            continue
        needed.add(component)
        for member in network.components[component]:
            for body in network.bodies[member]:
                for kind, other, _ in body:
                    if kind == NODE:
                        stack.append(network.component_of[other])
    return sorted(needed)


def support(
    network: Network, targets: Iterable[int], positive_only: bool = False
) -> tuple[dict[int, int], dict[int, int]]:
    """Per node that the `targets` need: the base facts and the inputs its bodies read
    (as bits), through the nodes they read (a cycle's nodes share theirs); with
    `positive_only`, through positive conditions only."""
    bases: dict[int, int] = {}
    inputs: dict[int, int] = {}
    for component in cone(network, targets):
        members = network.components[component]
        base_bits = input_bits = 0
        for member in members:
            for body in network.bodies[member]:
                for kind, index, positive in body:
                    if positive_only and not positive:
                        continue
                    if kind == BASE:
                        base_bits |= 1 << index
                    elif kind == INPUT:
                        input_bits |= 1 << index
                    elif kind == NODE and index in bases:  # earlier components (a cycle: own)
                        base_bits |= bases[index]
                        input_bits |= inputs[index]
        for member in members:
            bases[member] = base_bits
            inputs[member] = input_bits
    return bases, inputs


def bit_indexes(bits: int) -> list[int]:
    """The indexes of the bits set in `bits`, lowest first."""
    indexes = []
    while bits:
        low = bits & -bits
        indexes.append(low.bit_length() - 1)
        bits ^= low
    return indexes


def fold(
    network: Network,
    components: Sequence[int],
    does: frozenset[int] | None = None,
    folded: dict[int, Folded] | None = None,
) -> dict[int, Folded]:
    """The nodes of `components` simplified: constants propagated in order.

    With `does` (the inputs of a joint move), every input literal is a
    constant too.  A node whose bodies all fail is ``False``; one with a body
    left empty is ``True``.  Results go into `folded` (a new dict if None),
    where the nodes of earlier components may already be.
    """
    if folded is None:
        folded = {}
    for component in components:
        cyclic = network.cyclic[component]
        for member in network.components[component]:
            folded[member] = _fold_bodies(network.bodies[member], does, folded, cyclic)
    return folded


def _fold_bodies(
    bodies: Iterable[Body], does: frozenset[int] | None, folded: dict[int, Folded], cyclic: bool
) -> Folded:
    kept_bodies: list[Body] = []
    for body in bodies:
        kept: list[Literal] = []
        for lit in body:
            kind, index, positive = lit
            if kind == INPUT and does is not None:
                value = index in does
            elif kind == NODE:
                value = folded.get(index)
                if type(value) is not bool:
                    kept.append(lit)
                    continue
            else:
                kept.append(lit)
                continue
            if value != positive:
                break
        else:
            if not kept:
                return True
            kept_bodies.append(tuple(kept))
    if not kept_bodies and not cyclic:
        return False
    return kept_bodies


class MoveFolder:
    """Folds a set of components for one joint move, fast.

    It starts from the folding for no move at all (`unmoved`) and refolds
    only the nodes that read one of the move's inputs, or a node whose
    value changed; a node's bodies are indexed by their positive inputs so
    that only those of the move's inputs are read.
    """

    def __init__(self, network: Network, components: Sequence[int]) -> None:
        self.network = network
        self.unmoved = fold(network, components, frozenset())
        self.plain: dict[int, list[Body]] = {}
        """Per acyclic node: its bodies without a positive input literal."""
        self.by_input: dict[int, dict[int, list[Body]]] = {}
        """Per acyclic node: its other bodies, under their first positive input."""
        self.direct: dict[int, set[int]] = {}
        """Per input: the components with a body that reads it."""
        self.readers: dict[int, set[int]] = {}
        """Per component: the components reading its nodes."""
        chosen = set(components)
        for component in components:
            cyclic = network.cyclic[component]
            for member in network.components[component]:
                for body in network.bodies[member]:
                    first = None
                    for kind, index, positive in body:
                        if kind == INPUT:
                            self.direct.setdefault(index, set()).add(component)
                            if positive and first is None:
                                first = index
                        elif kind == NODE:
                            other = network.component_of[index]
                            if other != component and component in chosen:
                                self.readers.setdefault(other, set()).add(component)
                    if cyclic:
                        continue
                    if first is None:
                        self.plain.setdefault(member, []).append(body)
                    else:
                        self.by_input.setdefault(member, {}).setdefault(first, []).append(body)

    def fold(self, does: frozenset[int]) -> dict[int, Folded]:
        """Every node of the components folded for the joint move with inputs `does`."""
        network = self.network
        folded = dict(self.unmoved)
        queue = sorted({c for index in does for c in self.direct.get(index, ())})
        heapq.heapify(queue)
        done: set[int] = set()
        while queue:
            component = heapq.heappop(queue)
            if component in done:
                continue
            done.add(component)
            members = network.components[component]
            if network.cyclic[component]:
                before = [folded[m] for m in members]
                fold(network, [component], does, folded)
                changed = before != [folded[m] for m in members]
            else:
                (node,) = members
                bodies = list(self.plain.get(node, ()))
                indexed = self.by_input.get(node)
                if indexed:
                    for index in does:
                        bodies += indexed.get(index, ())
                value = _fold_bodies(bodies, does, folded, False)
                changed = value != folded[node]
                folded[node] = value
            if changed:
                for reader in self.readers.get(component, ()):
                    if reader not in done:
                        heapq.heappush(queue, reader)
        return folded
