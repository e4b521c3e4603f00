"""Python source generated from a `ggp.gdl.network.formulas.Network`, and compiled.

Every generated function takes a state as an integer ``S`` (bit ``b`` set
when base proposition ``b`` holds) and computes, in evaluation order, only
the nodes its result needs, each into a local variable ``v<node>``:

- ``step(S)``: ``None`` in a terminal state, else per role the list of
  input indexes of its legal moves (one function answers both questions:
  a state is asked both, and most of its nodes serve both);
- ``goals(S)``: per role, the positions of the goal entries
  (`Network.goals`) that hold;
- ``sees(S, m0, m1, ...)``: GDL-II's percepts, per role the positions of
  the ``sees`` entries (`Network.sees`) that hold for the joint move given
  as the general ``next`` below takes it;
- ``next(S)`` for one joint move, with its ``does`` literals folded away
  (`Generator.next_source`), so that base propositions carried over
  unchanged cost one mask for all; and ``next(S, m0, m1, ...)`` for any
  joint move, given as the input index each role plays (``m<role>``): an
  input literal is ``m0 == 12``, and several inputs of a role that each make
  a body hold are one test ``m0 in K3`` (a frozenset), since a role plays
  exactly one move.

A cyclic component (recursive ground rules) is computed by `fixpoint`, a
propagation over its rules that are enabled by the literals from outside it.

**Safety**: the source is built only from fixed text, integers and names
made of a letter and an integer; no text of the game description ever
enters it, so a hostile symbol cannot be executed.  `compile_source` checks
that the names in the source are of that form before compiling it.
"""

from __future__ import annotations

import marshal
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from types import CodeType

from ggp.gdl.network.formulas import BASE, INPUT, NODE, Folded, MoveFolder, Network, cone, fold

_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ALLOWED = frozenset(
    {"S", "N", "C", "o", "in", "fixpoint", "step", "goals", "next", "sees"}
    | {"append", "sort", "def", "return", "if", "and", "or", "not", "None", "True", "False", "bool"}
    | {"B", "A", "to_bytes", "from_bytes", "bytearray", "int", "little"}
)
"""Every name generated code may contain, besides `_GENERATED` ones."""
_GENERATED = re.compile(r"[vlKgm][0-9]+")

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


MAX_DEPTH = 8
"""How deeply common literals are factored out (Python limits nested blocks)."""

Item = tuple[frozenset, str]
"""A conjunction of literals and the statement to run when it holds."""


def _groups(items: list[tuple[frozenset, object]]) -> tuple[list, list]:
    """Items grouped by their most common literal (shared by two or more), and the rest."""
    counts = Counter(literal for literals, _ in items for literal in literals)
    groups: dict = {}
    rest = []
    for literals, payload in items:
        shared = [literal for literal in literals if counts[literal] > 1]
        if not shared:
            rest.append((literals, payload))
            continue
        best = min(shared, key=lambda literal: (-counts[literal], literal))
        groups.setdefault(best, []).append((literals - {best}, payload))
    ordered = sorted(groups.items(), key=lambda group: (-counts[group[0]], group[0]))
    return ordered, rest


WIDE = 512
"""States with more base propositions are read byte by byte (`_Code`)."""


class _Code:
    """How literals, conditions and statements are written.

    A base literal is a mask test on the state ``S``; a test on a Python
    integer costs time in proportion to its length, so for a *wide* state
    every function first takes its bytes (``B = S.to_bytes(...)``) and tests
    ``B[k] & m``, in constant time.
    """

    def __init__(
        self, base_count: int, input_role: Sequence[int | None], constants: dict[str, object]
    ) -> None:
        self.wide = base_count > WIDE
        self.size = (base_count + 7) // 8
        self.input_role = input_role
        """Per input: the index of the role that plays it (None: no role does)."""
        self.constants = constants

    def _input(self, index: int, positive: bool) -> str:
        role = self.input_role[index]
        if role is None:  # never played
            return "False" if positive else "True"
        return f"m{role} {'==' if positive else '!='} {index}"

    def _inputs_in(self, role: int, indexes: list[int]) -> str:
        """Whether role `role` plays one of `indexes`."""
        if len(indexes) == 1:
            return f"m{role} == {indexes[0]}"
        name = f"K{len(self.constants)}"
        self.constants[name] = frozenset(indexes)
        return f"m{role} in {name}"

    def prologue(self) -> list[str]:
        """The lines each function of ``S`` starts with."""
        return [f'    B = S.to_bytes({self.size}, "little")'] if self.wide else []

    def literal(self, literal: tuple[int, int, bool]) -> str:
        kind, index, positive = literal
        if kind == INPUT:
            return self._input(index, positive)
        if kind == NODE:
            text = f"v{index}"
        elif self.wide:
            text = f"B[{index >> 3}] & {1 << (index & 7)}"
        else:
            text = f"S & {1 << index}"
        return text if positive else f"not {text}"

    def conjunction(self, literals: Iterable[tuple[int, int, bool]]) -> str:
        """Literals as one Python condition; base literals in one mask test."""
        parts = []
        masks: dict[str, list[int]] = {}
        for kind, index, positive in sorted(literals):
            if kind == NODE:
                parts.append(f"v{index}" if positive else f"not v{index}")
                continue
            if kind == INPUT:
                parts.append(self._input(index, positive))
                continue
            if self.wide:
                variable, bit = f"B[{index >> 3}]", 1 << (index & 7)
            else:
                variable, bit = "S", 1 << index
            masks.setdefault(variable, [0, 0])[0 if positive else 1] |= bit
        for variable, (on, off) in masks.items():
            if on and off:
                parts.append(f"{variable} & {on | off} == {on}")
            elif on:
                single = on & (on - 1) == 0
                parts.append(f"{variable} & {on}" if single else f"{variable} & {on} == {on}")
            else:
                parts.append(f"not {variable} & {off}")
        return " and ".join(parts) if parts else "True"

    def expression(self, bodies: list[frozenset], depth: int = 0) -> str:
        """A disjunction of conjunctions, with common literals factored out."""
        if any(not body for body in bodies):
            return "True"
        if not bodies:
            return "False"
        items = [(body, None) for body in bodies]
        groups, rest = _groups(items) if depth < MAX_DEPTH else ([], items)
        parts = []
        for literal, members in groups:
            if len(members) == 1:
                parts.append(self.conjunction(members[0][0] | {literal}))
            else:
                inner = self.expression([m for m, _ in members], depth + 1)
                test = self.literal(literal)
                parts.append(test if inner == "True" else f"{test} and ({inner})")
        played: dict[int, list[int]] = {}  # bodies that are one move of a role
        for body, _ in rest:
            if len(body) == 1:
                ((kind, index, positive),) = body
                role = self.input_role[index] if kind == INPUT else None
                if positive and role is not None:
                    played.setdefault(role, []).append(index)
                    continue
            parts.append(self.conjunction(body))
        parts += [self._inputs_in(role, sorted(indexes)) for role, indexes in played.items()]
        return " or ".join(parts)

    def statements(
        self, items: list[Item], lines: list[str], indent: int = 1, depth: int = 0
    ) -> None:
        """``if`` statements running each item's statement when its literals hold."""
        pad = "    " * indent
        groups, rest = _groups(items) if depth < MAX_DEPTH and len(items) > 2 else ([], items)
        for literal, members in groups:
            if len(members) == 1:
                rest.append((members[0][0] | {literal}, members[0][1]))
                continue
            lines.append(f"{pad}if {self.literal(literal)}:")
            self.statements(members, lines, indent + 1, depth + 1)
        for literals, statement in rest:
            if literals:
                lines.append(f"{pad}if {self.conjunction(literals)}: {statement}")
            else:
                lines.append(f"{pad}{statement}")


class _Writer:
    """Writes the statements of one function: its nodes, then its results."""

    def __init__(
        self, network: Network, folded: dict[int, Folded], constants: dict, targets: set[int]
    ) -> None:
        self.network = network
        self.folded = folded
        self.constants = constants
        self.code = _Code(len(network.base), input_roles(network), constants)
        live = _live(network, folded, {t for t in targets if type(folded[t]) is not bool})
        self.live = live
        read: set[int] = set()
        for component in live:
            members = network.components[component]
            for member in members:
                value = folded[member]
                if type(value) is not bool:
                    for body in value:
                        read.update(i for kind, i, _ in body if kind == NODE)
        self.inlined = {
            t
            for t in targets
            if t not in read
            and type(folded[t]) is not bool
            and not network.cyclic[network.component_of[t]]
        }
        """Targets read by no other node: written into their results, not computed apart."""

    def nodes(self, lines: list[str]) -> None:
        for component in self.live:
            members = self.network.components[component]
            if self.network.cyclic[component]:
                self._cyclic(members, lines)
                continue
            (node,) = members
            value = self.folded[node]
            if type(value) is not bool and node not in self.inlined:
                lines.append(f"    v{node} = {self.code.expression([frozenset(b) for b in value])}")

    def items(self, node: int, statement: str, idempotent: bool) -> list[Item]:
        """The items running `statement` when `node` holds (none if it never does)."""
        value = self.folded[node]
        if value is True:
            return [(frozenset(), statement)]
        if value is False or not value:
            return []
        if node in self.inlined and (idempotent or len(value) == 1):
            return [(frozenset(body), statement) for body in value]
        if node in self.inlined:
            expression = self.code.expression([frozenset(b) for b in value])
            return [(frozenset(), f"if {expression}: {statement}")]
        return [(frozenset({(NODE, node, True)}), statement)]

    def test(self, node: int | None) -> str:
        """An expression for whether `node` holds."""
        if node is None:
            return "False"
        value = self.folded[node]
        if type(value) is bool:
            return str(value)
        if node in self.inlined:
            return self.code.expression([frozenset(b) for b in value])
        return f"v{node}"

    def _cyclic(self, members: list[int], lines: list[str]) -> None:
        position = {member: i for i, member in enumerate(members)}
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
                    tuple(position[i] for kind, i, _ in body if kind == NODE and i in position)
                )
                outside.append(
                    self.code.conjunction(
                        lit for lit in body if lit[0] != NODE or lit[1] not in position
                    )
                )
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


MIN_CARRY = 8
"""Base propositions carried over under the same condition that are copied with one mask."""


def _carries(bodies: list, bit: int, carried: dict[frozenset, int]) -> list:
    """The bodies of `bit`'s next that do not carry it over under a condition of their own.

    A body holding `bit` itself and other literals L carries the bit over when
    L holds: its bit is added to ``carried[L]``, so that bits carried under the
    same L are copied together (`_carry_items`).
    """
    own = (BASE, bit, True)
    rest = []
    for body in bodies:
        if own in body and len(body) > 1:
            condition = frozenset(body) - {own}
            carried[condition] = carried.get(condition, 0) | 1 << bit
        else:
            rest.append(body)
    return rest


def _carry_items(carried: dict[frozenset, int]) -> list[Item]:
    """``C |= S & MASK`` under each condition carrying many bits; bit by bit for the others."""
    result: list[Item] = []
    for condition, mask in carried.items():
        if mask.bit_count() >= MIN_CARRY:
            result.append((condition, f"C |= S & {mask}"))
            continue
        while mask:
            low = mask & -mask
            bit = low.bit_length() - 1
            own = (BASE, bit, True)
            result.append((condition | {own}, f"A[{bit >> 3}] |= {1 << (bit & 7)}"))
            mask ^= low
    return result


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


def input_roles(network: Network) -> list[int | None]:
    """Per input: the index of the role that may play it (None if no role may)."""
    roles: list[int | None] = [None] * len(network.inputs)
    for role, moves in enumerate(network.legal):
        for _, index in moves:
            roles[index] = role
    return roles


class Generator:
    """Writes the functions of one network."""

    def __init__(self, network: Network) -> None:
        self.network = network
        self.constants: dict[str, object] = {}
        self.next_cone = cone(network, self.next_targets())
        self._folder: MoveFolder | None = None

    def next_targets(self) -> list[int]:
        """The nodes of the next state."""
        return [node for node in self.network.next if node is not None]

    @property
    def folder(self) -> MoveFolder:
        """Folds the next-state nodes for one joint move (made when first asked for)."""
        if self._folder is None:
            self._folder = MoveFolder(self.network, self.next_cone)
        return self._folder

    def step_targets(self) -> list[int]:
        """The nodes ``step`` answers: legal moves, then terminal."""
        network = self.network
        legal_nodes = [node for moves in network.legal for node, _ in moves]
        return legal_nodes + ([] if network.terminal is None else [network.terminal])

    def goal_targets(self) -> list[int]:
        """The nodes ``goals`` answers."""
        return [node for entries in self.network.goals for node, _ in entries]

    def state_source(self) -> str:
        """The source of ``step`` and ``goals``."""
        return self.step_source() + self.goals_source()

    def step_source(self) -> str:
        """The source of ``step(S)``: None if terminal, else per role its legal inputs."""
        lines: list[str] = []
        writer = self._writer("step(S)", self.step_targets(), lines)
        if self.network.terminal is not None:
            lines.append(f"    if {writer.test(self.network.terminal)}: return None")
        items = []
        for role, moves in enumerate(self.network.legal):
            lines.append(f"    l{role} = []")
            for node, move in moves:
                items += writer.items(node, f"l{role}.append({move})", idempotent=False)
        writer.code.statements(items, lines)
        for role in range(len(self.network.legal)):  # inputs are in the order of move texts
            lines.append(f"    l{role}.sort()")
        lines.append(f"    return ({''.join(f'l{r}, ' for r in range(len(self.network.legal)))})")
        return "\n".join(lines) + "\n"

    def goals_source(self) -> str:
        """The source of ``goals(S)``: per role, the positions of its goal entries that hold."""
        return self._entries_source("goals(S)", self.network.goals)

    def sees_targets(self) -> list[int]:
        """The nodes ``sees`` answers (GDL-II's percepts)."""
        return [node for entries in self.network.sees for node, _ in entries]

    def sees_source(self) -> str:
        """The source of ``sees(S, m0, m1, ...)``: per role, the positions of its
        ``sees`` entries (`Network.sees`) that hold when the joint move is played,
        given as the input index each role plays (as the general ``next``)."""
        moves = ", ".join(f"m{role}" for role in range(len(self.network.legal)))
        return self._entries_source(f"sees(S, {moves})", self.network.sees)

    def _entries_source(self, signature: str, per_role: list[list[tuple[int, object]]]) -> str:
        """A function listing, per role, the positions of the entries whose node holds."""
        lines: list[str] = []
        targets = [node for entries in per_role for node, _ in entries]
        writer = self._writer(signature, targets, lines)
        items = []
        for role, entries in enumerate(per_role):
            lines.append(f"    g{role} = []")
            for position, (node, _) in enumerate(entries):
                items += writer.items(node, f"g{role}.append({position})", idempotent=False)
        writer.code.statements(items, lines)
        lines.append(f"    return ({''.join(f'g{r}, ' for r in range(len(per_role)))})")
        return "\n".join(lines) + "\n"

    def _writer(self, signature: str, targets: list[int], lines: list[str]) -> _Writer:
        folded = fold(self.network, cone(self.network, targets))
        writer = _Writer(self.network, folded, self.constants, set(targets))
        lines.append(f"def {signature}:")
        lines += writer.code.prologue()
        writer.nodes(lines)
        return writer

    def _next(self, signature: str, folded: dict[int, Folded], lines: list[str]) -> None:
        network = self.network
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
        writer = _Writer(network, folded, self.constants, {node for _, node in changing})
        code = writer.code
        lines.append(f"def {signature}:")
        lines += code.prologue()
        writer.nodes(lines)
        items = []
        if code.wide:  # set bits in a byte array, then make one integer of it
            lines.append(f"    A = bytearray({code.size})")
            carried: dict[frozenset, int] = {}
            for bit, node in changing:
                statement = f"A[{bit >> 3}] |= {1 << (bit & 7)}"
                if node in writer.inlined:
                    rest = _carries(folded[node], bit, carried)
                    items += [(frozenset(body), statement) for body in rest]
                else:
                    items += writer.items(node, statement, True)
            items += _carry_items(carried)
            lines.append("    C = 0")
            code.statements(items, lines)
            lines.append(f'    return S & {keep} | {fixed} | C | int.from_bytes(A, "little")')
            return
        lines.append(f"    N = {fixed}")
        for bit, node in changing:
            items += writer.items(node, f"N |= {1 << bit}", idempotent=True)
        code.statements(items, lines)
        lines.append(f"    return S & {keep} | N" if keep else "    return N")

    def general_next_source(self) -> str:
        """The source of ``next(S, m0, m1, ...)``: any joint move, one input index per role."""
        lines: list[str] = []
        moves = ", ".join(f"m{role}" for role in range(len(self.network.legal)))
        self._next(f"next(S, {moves})", fold(self.network, self.next_cone), lines)
        return "\n".join(lines) + "\n"

    def next_source(self, does: frozenset[int]) -> str:
        """The source of ``next(S)`` for the joint move with inputs `does`."""
        folded = self.folder.fold(does)
        lines: list[str] = []
        self._next("next(S)", folded, lines)
        return "\n".join(lines) + "\n"


OFFLOAD_CHARS = 200_000
"""Generated sources at least this long (about 0.1 s of CPython's compiler) are
compiled in a child process (`compiled_code`)."""

CHECK_CHARS = 100_000
"""A long source's names are checked this many characters at a time (`compile_source`)."""

_CHILD_COMPILE = (
    "import marshal, sys; sys.stdout.buffer.write(marshal.dumps("
    "compile(sys.stdin.buffer.read().decode(), '<compiled gdl>', 'exec')))"
)


def compile_source(source: str, constants: dict[str, object]) -> dict[str, Callable]:
    """Compile generated `source` after checking that it names nothing unexpected.

    Returns its namespace (the functions it defines).
    """
    for chunk in _chunks(source, CHECK_CHARS):  # one regex call holds the GIL throughout
        for name in _NAMES.findall(chunk):
            if name not in _ALLOWED and not _GENERATED.fullmatch(name):
                raise ValueError(f"generated code names {name[:40]!r}, which it must not")
    builtins = {"bool": bool, "bytearray": bytearray, "int": int}
    namespace: dict[str, object] = {"__builtins__": builtins, "fixpoint": fixpoint}
    namespace.update(constants)
    exec(compiled_code(source), namespace)  # source checked above
    return namespace


def compiled_code(source: str) -> CodeType:
    """The code of `source`, compiled in a child Python where it is `OFFLOAD_CHARS` long
    or more.  CPython's compiler holds the GIL from start to end: the general
    next-state function of kalaha_2009 (11.7 MB) took 5.3 s in a build thread, all
    that time the search thread beside it could not answer a move.  The child's code
    object comes back marshalled and is read in 12 ms.  Where no child can be run,
    or it fails, the source is compiled here (a syntax error is raised from here)."""
    if len(source) >= OFFLOAD_CHARS:
        try:
            child = subprocess.run(
                [sys.executable, "-I", "-S", "-c", _CHILD_COMPILE],
                input=source.encode(),
                capture_output=True,
                check=True,
            )
            code = marshal.loads(child.stdout)
            if isinstance(code, CodeType):
                return code
        except (OSError, subprocess.SubprocessError, ValueError, EOFError, TypeError):
            pass
    return compile(source, "<compiled gdl>", "exec")


def _chunks(source: str, size: int) -> Iterable[str]:
    """`source` in pieces of about `size` characters, each ending at a line's end."""
    start = 0
    while start < len(source):
        end = source.find("\n", start + size)
        end = len(source) if end < 0 else end + 1
        yield source[start:end]
        start = end
