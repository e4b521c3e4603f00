"""Bottom-up evaluation of validated GDL rules: the reference reasoner and the fallback.

- `facts`, `joins`, `reasoner`: semi-naive evaluation, stratum by stratum, over indexed facts;
- `magic`: computing relations only where they are asked for (magic sets);
- `game`: `GdlGame`, a GDL description behind the `ggp.games.base` interface.
"""
