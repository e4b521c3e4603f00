"""The front end of GDL: reading and checking a game description.

- `terms`: the data (terms are strings and tuples, `Rule`) and `to_kif`, the
  one canonical printer;
- `parser`: KIF text to terms and rules (`parse_rules`, `parse_term`,
  `parse_terms`, `parse_sexprs` for protocol messages); grammar in ``grammar.lark``;
- `strata`: clauses, the dependency graph, strata and phases (graph components by `scc`);
- `validator`: GDL's restrictions, every fault listed (`check`);
- `lint`: what GDL allows but an author rarely means (typos), as warnings;
- `errors`: `GdlSyntaxError` and `GdlValidationError`.
"""
