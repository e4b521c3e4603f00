"""The generic Game/State interface and the built-in games (native and GDL)."""
