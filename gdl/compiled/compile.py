"""From a validated game to compiled functions: grounding, network, code.

`compile_rules` runs the three steps within a `Budget` and gives
`CompiledRules`, or raises `GroundingError` saying why the game stays on the
interpreter.  The next-state function of a joint move is specialised for it
once it has been used a few times (`CompiledRules.next_function`) and kept;
the general next-state function serves the others.  Goals are asked once a
playout, so their code is written last: when it does not fit in what is left
of the budget, the generated Python leaves them to the interpreter
(`CompiledRules.goals_code_left`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ggp.gdl.compiled.codegen import Generator, compile_source
from ggp.gdl.network.formulas import Network, build_network, cone
from ggp.gdl.network.grounding import WORK_UNITS, Budget, GroundingError, Work, ground
from ggp.gdl.syntax.strata import Strata
from ggp.gdl.syntax.terms import Term, to_kif

MAX_SPECIALISED = 2_000
"""Joint moves that get a function of their own (written in a few milliseconds each);
any others use the general next-state function."""
SPECIALISE_AFTER = 50
"""Uses of a joint move before it gets a function of its own: writing one costs about
100 calls of the general function (speedChess: 4 ms against 46 us, then 6 us a call),
so games with thousands of rare joint moves do not write one function per move played
(speedChess over its first 8 s: 3,353 states per CPU-second, against 1,386 with 3)."""
MAX_SPECIALISED_LINES = 3_000
"""A joint move's function longer than this means that moves change too much of the
state for functions of their own to pay: all use the general one."""


@dataclass
class CompiledRules:
    """The compiled functions of a game and what they need to be read."""

    network: Network
    generator: Generator
    functions: dict[str, Callable]
    move_texts: list[str]
    """Per input index: the text of its move."""
    base_texts: list[str]
    """Per base bit: the text of its term (in sorted order)."""
    goal_values: list[list[int | None]]
    """Per role and goal entry: its value, or None if it is not an integer 0..100."""
    ground_seconds: float = 0.0
    compile_seconds: float = 0.0
    """CPU seconds of each part (shown; the budget counts work)."""
    work: int = 0
    """Units of work spent (`ggp.gdl.network.grounding.Budget`)."""
    goals_left: str = ""
    """Why the goals are left to the interpreter, if they are (`ground`)."""
    goals_code_left: str = ""
    """Why the generated Python leaves the goals to the interpreter, if it does: their
    code does not fit in what is left of the budget (othello's disc count: 4 MB).
    The network has them, so native code computes them."""
    sees_code_left: str = ""
    """Why the generated Python leaves GDL-II's percepts to the interpreter, if it does:
    their code does not fit in what is left of the budget (native code computes them)."""
    percept_texts: list[list[str]] = field(default_factory=list)
    """Per role and ``sees`` entry (`Network.sees`): the text of its percept."""
    general_left: str = ""
    """Why the general next-state function was not written before play, if it was not
    (it did not fit in the budget): then a joint move gets its own function on its
    first use, and the general one is written only if one of them is too long."""
    specialise: bool = True
    next_functions: dict[tuple[int, ...], Callable[[int], int]] = field(default_factory=dict)
    uses: dict[tuple[int, ...], int] = field(default_factory=dict)
    """Per joint move not specialised yet: how often its next state was asked for."""
    native_next: Callable[[int, int], int] | None = None
    """Native code's next state (state bits, input bits), once attached."""

    def use_native_next(self, native_next: Callable[[int, int], int]) -> None:
        """Compute next states with `native_next` from now on."""
        self.native_next = native_next
        self.next_functions = {}

    def next_function(self, joint: tuple[int, ...]) -> Callable[[int], int]:
        """The next-state function of the joint move with these input indexes.

        A joint move gets a function of its own on its `SPECIALISE_AFTER`-th use
        (at most `MAX_SPECIALISED` of them); until then, and for every joint move
        once specialising stops, the general function serves.
        """
        found = self.next_functions.get(joint)
        if found is not None:
            return found
        native_next = self.native_next
        if native_next is not None:
            does = sum(1 << index for index in set(joint))

            def native(state: int) -> int:
                return native_next(state, does)

            self.next_functions[joint] = native
            return native
        if self.specialise and len(self.next_functions) < MAX_SPECIALISED:
            uses = self.uses[joint] = self.uses.get(joint, 0) + 1
            if uses < SPECIALISE_AFTER and not self.general_left:
                return self.general(joint)  # not kept: its own function may come later
            found = self.specialised(joint)
        if found is None:
            found = self.general(joint)
        self.next_functions[joint] = found
        return found

    def specialised(self, joint: tuple[int, ...]) -> Callable[[int], int] | None:
        """The joint move's own next-state function, now (kept), or None if it is too long.

        A function over `MAX_SPECIALISED_LINES` stops all specialising.
        """
        source = self.generator.next_source(frozenset(joint))
        if source.count("\n") > MAX_SPECIALISED_LINES:
            self.specialise = False  # the move changes most of the state: no gain
            return None
        found = compile_source(source, self.generator.constants)["next"]
        self.next_functions[joint] = found
        return found

    def write_general(self) -> None:
        """Write the general next-state function now if it was left (`general_left`):
        for a caller that has the time before play (a background build), so that no
        joint move's first use writes code of its own."""
        self._general_function()
        self.general_left = ""

    def _general_function(self) -> Callable[..., int]:
        """The general next-state function, written now if it did not fit in the
        budget (`general_left`); it was written with the others, before play, if it did."""
        function = self.functions.get("next")
        if function is None:
            source = self.generator.general_next_source()
            function = compile_source(source, self.generator.constants)["next"]
            self.functions["next"] = function
        return function

    def general(self, joint: tuple[int, ...]) -> Callable[[int], int]:
        """The general next-state function applied to this joint move."""
        function = self._general_function()

        def found(state: int) -> int:
            return function(state, *joint)

        return found

    def summary(self) -> str:
        network = self.network
        return (
            f"{len(network.base)} base propositions, {len(network.inputs)} moves, "
            f"{network.node_count()} nodes, {network.rule_count()} ground rules; "
            f"{self.work:,} units of work: grounded in {self.ground_seconds:.2f} s, "
            f"compiled in {self.compile_seconds:.2f} s of CPU"
            + (f"; goals by the interpreter ({self.goals_left})" if self.goals_left else "")
            + (
                f"; no general next-state function ({self.general_left})"
                if self.general_left
                else ""
            )
            + (
                f"; percepts by the interpreter on the Python path ({self.sees_code_left})"
                if self.sees_code_left
                else ""
            )
            + (
                f"; goals by the interpreter on the Python path ({self.goals_code_left})"
                if self.goals_code_left
                else ""
            )
        )


def goal_values(network: Network) -> list[list[int | None]]:
    """Per role, the value of each of its goal entries (None: not a number 0..100)."""
    return [[_goal_value(value) for _, value in entries] for entries in network.goals]


def percept_texts(network: Network) -> list[list[str]]:
    """Per role, the text of each of its ``sees`` entries' percepts."""
    return [[to_kif(percept) for _, percept in entries] for entries in network.sees]


def _goal_value(value: Term) -> int | None:
    if type(value) is str and value.isdigit() and 0 <= int(value) <= 100:
        return int(value)
    return None


def compile_rules(
    strata: Strata, roles: Sequence[Term], budget: Budget | None = None
) -> CompiledRules:
    """Ground and compile validated rules; `GroundingError` says why not.

    Each step's work is known from the size of its input before it starts and
    is counted against the budget first (`Work.afford`).  Should memory or
    Python's stack run out all the same, that is a `GroundingError` too.
    """
    try:
        return _compile_rules(strata, roles, Work(budget or Budget()))
    except MemoryError:
        raise GroundingError("out of memory while grounding and compiling the rules") from None
    except RecursionError:
        raise GroundingError("terms or rules nested too deeply to compile") from None


def _compile_rules(strata: Strata, roles: Sequence[Term], work: Work) -> CompiledRules:
    program = ground(strata, work=work)
    ground_seconds = work.seconds()
    literals = sum(1 + len(positive) + len(negative) for _, positive, negative in program.rules)
    work.afford(int(literals * WORK_UNITS["ground rule literal"]), "building the network")
    network = build_network(program, roles)
    generator = Generator(network)  # the functions of single joint moves are written in play
    functions = _function(generator, generator.step_targets(), generator.step_source, work)
    general_left = ""
    try:
        next_source = generator.general_next_source
        functions.update(_function(generator, generator.next_targets(), next_source, work))
    except GroundingError as error:
        general_left = str(error)
    sees_code_left = ""
    if generator.sees_targets():  # GDL-II: percepts are asked at every joint move
        try:
            functions.update(
                _function(generator, generator.sees_targets(), generator.sees_source, work)
            )
        except GroundingError as error:
            sees_code_left = str(error)
    goals_code_left = ""
    try:  # last: the goals are asked once a playout, the interpreter can answer them
        functions.update(
            _function(generator, generator.goal_targets(), generator.goals_source, work)
        )
    except GroundingError as error:
        goals_code_left = str(error)
    rules = CompiledRules(
        network,
        generator,
        functions,
        [to_kif(move) for _, move in network.inputs],
        [to_kif(term) for term in network.base],
        goal_values(network),
        ground_seconds,
        percept_texts=percept_texts(network),
    )
    rules.compile_seconds = work.seconds() - ground_seconds
    rules.work = work.spent
    rules.goals_left = program.goals_left
    rules.goals_code_left = goals_code_left
    rules.sees_code_left = sees_code_left
    rules.general_left = general_left
    return rules


def _function(
    generator: Generator,
    targets: list[int],
    write: Callable[[], str],
    work: Work,
) -> dict[str, Callable]:
    """Write and compile the function that answers `targets`, paying for both first.

    Writing is charged for the literals of the nodes the function reads, compiling
    for each byte written; past the budget, `GroundingError`."""
    written = generator.network.literal_count(cone(generator.network, targets))
    work.afford(int(written * WORK_UNITS["network literal"]), "writing the code")
    source = write()
    work.afford(int(len(source) * WORK_UNITS["source byte"]), "compiling the code")
    try:
        return compile_source(source, generator.constants)
    except SyntaxError as error:
        raise GroundingError(f"the generated code cannot be compiled: {error}") from None
