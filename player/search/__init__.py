"""The search: Monte Carlo tree search, the enhancements it composes, exact solving."""
