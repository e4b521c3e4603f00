"""The network service: the GGP HTTP player, its protocol, sessions and worker processes."""
