"""The local referee: matches, tournaments and match logs."""
