"""The ground form of a game: found once, at start, within a budget.

- `grounding`: every relevant ground instance of the rules (computed with the interpreter);
- `formulas`: those ground rules as a network of propositions over integer indexes.
"""
