"""The search: Monte Carlo tree search, the enhancements it composes, exact solving, and
information-set search for GDL-II games (`hidden`)."""
