"""One module per ``ggp`` subcommand, each with `register(subparsers)`."""
