"""From a validated game to compiled functions: grounding, network, code.

`compile_rules` runs the three steps within a `Budget` and gives
`CompiledRules`, or raises `GroundingError` saying why the game stays on the
interpreter.  The next-state function of a joint move is specialised for it
on first use (`CompiledRules.next_function`) and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gdl.compiled.codegen import Generator, compile_source
from gdl.network.formulas import Network, build_network
from gdl.network.grounding import Budget, Deadline, GroundingError, ground
from gdl.syntax.strata import Strata
from gdl.syntax.terms import Term, to_kif

MAX_SPECIALISED = 2_000
"""Joint moves that get a function of their own (written in a few milliseconds each,
on first use); any others use the general next-state function."""
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
    specialise: bool = True
    next_functions: dict[tuple[int, ...], Callable[[int], int]] = field(default_factory=dict)
    native_next: Callable[[int, int], int] | None = None
    """Native code's next state (state bits, input bits), once attached."""

    def use_native_next(self, native_next: Callable[[int, int], int]) -> None:
        """Compute next states with `native_next` from now on."""
        self.native_next = native_next
        self.next_functions = {}

    def next_function(self, joint: tuple[int, ...]) -> Callable[[int], int]:
        """The next-state function of the joint move with these input indexes."""
        found = self.next_functions.get(joint)
        if found is not None:
            return found
        native_next = self.native_next
        if native_next is not None:
            does = sum(1 << index for index in set(joint))

            def found(state: int) -> int:
                return native_next(state, does)

            self.next_functions[joint] = found
            return found
        source = None
        if self.specialise and len(self.next_functions) < MAX_SPECIALISED:
            source = self.generator.next_source(frozenset(joint))
            if source.count("\n") > MAX_SPECIALISED_LINES:
                self.specialise = False  # the move changes most of the state: no gain
                source = None
        if source is not None:
            found = compile_source(source, self.generator.constants)["next"]
        else:
            general = self.functions.get("next")
            if general is None:
                source = self.generator.general_next_source()
                general = compile_source(source, self.generator.constants)["next"]
                self.functions["next"] = general
            does = 0
            for index in joint:
                does |= 1 << index

            def found(state: int) -> int:
                return general(state, does)

        self.next_functions[joint] = found
        return found

    def summary(self) -> str:
        network = self.network
        return (
            f"{len(network.base)} base propositions, {len(network.inputs)} moves, "
            f"{network.node_count()} nodes, {network.rule_count()} ground rules; grounded in "
            f"{self.ground_seconds:.2f} s, compiled in {self.compile_seconds:.2f} s"
        )


def _goal_value(value: Term) -> int | None:
    if type(value) is str and value.isdigit() and 0 <= int(value) <= 100:
        return int(value)
    return None


def compile_rules(
    strata: Strata, roles: Sequence[Term], budget: Budget | None = None
) -> CompiledRules:
    """Ground and compile validated rules; `GroundingError` says why not."""
    budget = budget or Budget()
    deadline = Deadline(budget)
    program = ground(strata, budget, deadline)
    ground_seconds = deadline.elapsed()
    network = build_network(program, roles)
    deadline.check("building the network")
    generator = Generator(network)
    source = generator.state_source()
    deadline.check("writing the code")
    try:
        functions = compile_source(source, generator.constants)
    except (RecursionError, MemoryError, SyntaxError) as error:
        raise GroundingError(f"the generated code cannot be compiled: {error}") from None
    deadline.check("compiling the code")
    rules = CompiledRules(
        network,
        generator,
        functions,
        [to_kif(move) for _, move in network.inputs],
        [to_kif(term) for term in network.base],
        [[_goal_value(value) for _, value in entries] for entries in network.goals],
        ground_seconds,
    )
    rules.compile_seconds = deadline.elapsed() - ground_seconds
    return rules
