"""The Game Description Language, as a pipeline of layers; each imports only those above it here.

- `ggp.gdl.syntax`: the language front end: terms, KIF parsing (lark grammar in
  ``syntax/grammar.lark``), the dependency structure (strata) and validation;
- `ggp.gdl.interpreter`: bottom-up, semi-naive evaluation of validated rules and
  `GdlGame`, a description behind the `ggp.games.base` interface;
- `ggp.gdl.network`: grounding (every relevant ground instance, found with the
  interpreter) and the ground rules as a network of propositions;
- `ggp.gdl.compiled`: the network turned into generated Python, `CompiledGame`,
  and the trial that picks between it and the interpreter;
- `ggp.gdl.load`: the one seam to call: a game from rules text with the reasoner
  that suits it;
- `ggp.gdl.traces`: replaying recorded playouts against a game (tests, benchmarks);
- `ggp.gdl.playouts`: random playouts kept whole, and the rules that never held in them;
- `ggp.gdl.analysis`: what the rules and playouts say about play (latches, goal-relevant
  facts, constant-sum, what each role's moves change, length and branching).
"""
