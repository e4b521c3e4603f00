"""Playing games: agents, Monte Carlo tree search and the GGP HTTP player."""
