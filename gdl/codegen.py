"""Python source generated from a `gdl.formulas.Network`, and compiled.

Every generated function takes a state as an integer ``S`` (bit ``b`` set
when base proposition ``b`` holds) and computes, in evaluation order, only
the nodes its result needs, each into a local variable ``v<node>``:

- ``legal(S)``: per role, the list of input indexes of its legal moves;
- ``step(S)``: ``None`` in a terminal state, else what ``legal`` gives;
- ``terminal(S)``; ``goals(S)``: per role, the positions of the goal
  entries (`Network.goals`) that hold;
- ``next(S, D)``: the next state for the joint move whose input bits are
  ``D``; and `next_for`, a function of ``S`` alone for one joint move, with
  its ``does`` literals folded away, so that base propositions carried over
  unchanged cost one mask for all.

A cyclic component (recursive ground rules) is computed by `fixpoint`, a
propagation over its rules that are enabled by the literals from outside it.

**Safety**: the source is built only from fixed text, integers and names
made of a letter and an integer; no text of the game description ever
enters it, so a hostile symbol cannot be executed.  `compile_source` checks
that the names in the source are of that form before compiling it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from gdl.formulas import BASE, NODE, Body, Folded, Network, cone, fold

_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALLOWED = frozenset(
    {"S", "D", "N", "o", "fixpoint", "legal", "step", "terminal", "goals", "next", "append"}
    | {"def", "return", "if", "and", "or", "not", "None", "True", "False", "bool"}
)
"""Every name generated code may contain, besides `_GENERATED` ones."""
_GENERATED = re.compile(r"[vlKg][0-9]+")

FixpointSpec = tuple[int, tuple[int, ...], tuple[tuple[int, ...], ...], tuple, tuple[int, ...]]


def fixpoint(spec: FixpointSpec, outside: Sequence[object]) -> list[bool]:
    """The least model of a cyclic component's rules (positive inside it).

    `spec` holds the component's size, each rule's head and inside members,
    the rules watching each member and the members known true; `outside[r]`
    says whether rule r's literals from outside the component hold.
    """
    size, heads, insides, watchers, initial = spec
    value = [False] * size
    missing = [len(inside) for inside in insides]
    queue = []
    for member in initial:
        value[member] = True
        queue.append(member)
    for rule, enabled in enumerate(outside):
        if not enabled:
            missing[rule] = -1
        elif missing[rule] == 0 and not value[heads[rule]]:
            value[heads[rule]] = True
            queue.append(heads[rule])
    while queue:
        for rule in watchers[queue.pop()]:
            count = missing[rule]
            if count > 0:
                missing[rule] = count = count - 1
                if count == 0 and not value[heads[rule]]:
                    value[heads[rule]] = True
                    queue.append(heads[rule])
    return value


class _Writer:
    """Writes the statements that compute the nodes of some components."""

    def __init__(self, network: Network, folded: dict[int, Folded], constants: dict) -> None:
        self.network = network
        self.folded = folded
        self.constants = constants

    def value(self, node: int) -> str:
        folded = self.folded[node]
        if folded is True:
            return "True"
        if folded is False:
            return "False"
        return f"v{node}"

    def condition(self, body: Body, inside: set[int] | None = None) -> str:
        """A body as a Python expression (its literals on `inside` nodes left out)."""
        parts = []
        masks = [[0, 0], [0, 0]]
        for kind, index, positive in body:
            if kind == NODE:
                if inside is not None and index in inside:
                    continue
                parts.append(f"v{index}" if positive else f"not v{index}")
            else:
                masks[kind][0 if positive else 1] |= 1 << index
        for variable, (on, off) in zip(("S", "D"), masks, strict=True):
            if on and off:
                parts.append(f"{variable} & {on | off} == {on}")
            elif on:
                parts.append(
                    f"{variable} & {on}" if on & (on - 1) == 0 else f"{variable} & {on} == {on}"
                )
            elif off:
                parts.append(f"not {variable} & {off}")
        return " and ".join(parts) if parts else "True"

    def expression(self, node: int) -> str:
        folded = self.folded[node]
        if type(folded) is bool:
            return str(folded)
        if not folded:
            return "False"
        return " or ".join(self.condition(body) for body in folded)

    def components(self, components: Sequence[int], lines: list[str]) -> None:
        for component in components:
            members = self.network.components[component]
            if not self.network.cyclic[component]:
                (node,) = members
                if type(self.folded[node]) is not bool:
                    lines.append(f"    v{node} = {self.expression(node)}")
                continue
            self._cyclic(component, members, lines)

    def _cyclic(self, component: int, members: list[int], lines: list[str]) -> None:
        position = {member: i for i, member in enumerate(members)}
        inside = set(members)
        heads, insides, outside = [], [], []
        initial = []
        for member in members:
            folded = self.folded[member]
            if folded is True:
                initial.append(position[member])
                continue
            for body in folded or ():
                heads.append(position[member])
                insides.append(
                    tuple(position[i] for kind, i, _ in body if kind == NODE and i in inside)
                )
                outside.append(self.condition(body, inside))
        watchers: list[list[int]] = [[] for _ in members]
        for rule, members_read in enumerate(insides):
            for member in members_read:
                watchers[member].append(rule)
        name = f"K{len(self.constants)}"
        self.constants[name] = (
            len(members),
            tuple(heads),
            tuple(insides),
            tuple(map(tuple, watchers)),
            tuple(initial),
        )
        lines.append(f"    o = ({', '.join(outside)}{',' if len(outside) == 1 else ''})")
        targets = ", ".join(f"v{member}" for member in members)
        lines.append(f"    {targets}{',' if len(members) == 1 else ''} = fixpoint({name}, o)")


def _live(network: Network, folded: dict[int, Folded], roots: set[int]) -> list[int]:
    """The components of the nodes that `roots` still read after folding, in order."""
    seen: set[int] = set()
    stack = list(roots)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        value = folded[node]
        if type(value) is bool:
            continue
        if network.cyclic[network.component_of[node]]:
            stack.extend(network.components[network.component_of[node]])
        for body in value:
            stack.extend(index for kind, index, _ in body if kind == NODE)
    return sorted({network.component_of[node] for node in seen})


def _read(folded: dict[int, Folded], nodes: list[int]) -> set[int]:
    """The nodes that are not constants after folding."""
    return {node for node in nodes if type(folded[node]) is not bool}


class Generator:
    """Writes and compiles the functions of one network."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.constants: dict[str, object] = {}
        self.next_cone = cone(network, [n for n in network.next if n is not None])

    def state_source(self) -> str:
        """The source of ``legal``, ``step``, ``terminal``, ``goals`` and ``next``."""
        network = self.network
        legal_nodes = [node for moves in network.legal for node, _ in moves]
        goal_nodes = [node for entries in network.goals for node, _ in entries]
        terminal = [] if network.terminal is None else [network.terminal]
        lines: list[str] = []
        self._function("legal", legal_nodes, lines, self._legal_result)
        self._function("step", legal_nodes + terminal, lines, self._step_result)
        self._function("terminal", terminal, lines, self._terminal_result)
        self._function("goals", goal_nodes, lines, self._goals_result)
        self._next("next(S, D)", None, lines)
        return "\n".join(lines) + "\n"

    def _function(self, name: str, targets: list[int], lines: list[str], result) -> None:
        folded = fold(self.network, cone(self.network, targets))
        writer = _Writer(self.network, folded, self.constants)
        lines.append(f"def {name}(S):")
        writer.components(_live(self.network, folded, _read(folded, targets)), lines)
        result(writer, lines)

    def _legal_lists(self, writer: _Writer, lines: list[str]) -> str:
        for role, moves in enumerate(self.network.legal):
            lines.append(f"    l{role} = []")
            for node, move in moves:
                value = writer.value(node)
                if value == "True":
                    lines.append(f"    l{role}.append({move})")
                elif value != "False":
                    lines.append(f"    if {value}: l{role}.append({move})")
        roles = len(self.network.legal)
        return "(" + "".join(f"l{role}, " for role in range(roles)) + ")"

    def _legal_result(self, writer: _Writer, lines: list[str]) -> None:
        lines.append(f"    return {self._legal_lists(writer, lines)}")

    def _step_result(self, writer: _Writer, lines: list[str]) -> None:
        terminal = "False" if self.network.terminal is None else writer.value(self.network.terminal)
        lines.append(f"    if {terminal}: return None")
        lines.append(f"    return {self._legal_lists(writer, lines)}")

    def _terminal_result(self, writer: _Writer, lines: list[str]) -> None:
        terminal = "False" if self.network.terminal is None else writer.value(self.network.terminal)
        lines.append(f"    return bool({terminal})")

    def _goals_result(self, writer: _Writer, lines: list[str]) -> None:
        for role, entries in enumerate(self.network.goals):
            lines.append(f"    g{role} = []")
            for position, (node, _) in enumerate(entries):
                value = writer.value(node)
                if value != "False":
                    lines.append(f"    if {value}: g{role}.append({position})")
        roles = len(self.network.goals)
        lines.append("    return (" + "".join(f"g{role}, " for role in range(roles)) + ")")

    def _next(self, signature: str, does: frozenset[int] | None, lines: list[str]) -> None:
        network = self.network
        folded = fold(network, self.next_cone, does)
        writer = _Writer(network, folded, self.constants)
        keep = fixed = 0
        changing: list[tuple[int, int]] = []
        for bit, node in enumerate(network.next):
            if node is None:
                continue
            value = folded[node]
            if value is True:
                fixed |= 1 << bit
            elif value is False or not value:
                continue
            elif value == [((BASE, bit, True),)]:
                keep |= 1 << bit
            else:
                changing.append((bit, node))
        lines.append(f"def {signature}:")
        writer.components(_live(network, folded, {node for _, node in changing}), lines)
        lines.append(f"    N = {fixed}")
        for bit, node in changing:
            lines.append(f"    if v{node}: N |= {1 << bit}")
        lines.append(f"    return S & {keep} | N" if keep else "    return N")

    def next_source(self, does: frozenset[int]) -> str:
        """The source of ``next(S)`` for the joint move with inputs `does`."""
        lines: list[str] = []
        self._next("next(S)", does, lines)
        return "\n".join(lines) + "\n"


def compile_source(source: str, constants: dict[str, object]) -> dict[str, Callable]:
    """Compile generated `source` after checking that it names nothing unexpected.

    Returns its namespace (the functions it defines).
    """
    for name in _NAMES.findall(source):
        if name not in _ALLOWED and not _GENERATED.fullmatch(name):
            raise ValueError(f"generated code names {name[:40]!r}, which it must not")
    namespace: dict[str, object] = {"__builtins__": {"bool": bool}, "fixpoint": fixpoint}
    namespace.update(constants)
    exec(compile(source, "<compiled gdl>", "exec"), namespace)  # source checked above
    return namespace
