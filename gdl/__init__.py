"""The Game Description Language: parsing, validation and reasoning.

- `gdl.terms`: the data (terms are strings and tuples, `Rule`) and `to_kif`,
  the one canonical printer;
- `gdl.parser`: KIF text to terms and rules (`parse_rules`, `parse_term`,
  `parse_terms`, `parse_sexprs` for protocol messages); grammar in
  ``grammar.lark``;
- `gdl.validator`: GDL's restrictions, every fault listed (`check`);
- `gdl.strata`: clauses, the dependency graph, strata and phases;
- `gdl.magic`: computing relations only where they are asked for (magic sets);
- `gdl.facts`, `gdl.joins`, `gdl.reasoner`: bottom-up, semi-naive evaluation;
- `gdl.game`: `GdlGame`, a GDL description behind the `games.base` interface;
- `gdl.traces`: replaying recorded playouts against a game;
- `gdl.errors`: `GdlSyntaxError` and `GdlValidationError`.
"""
