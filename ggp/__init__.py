"""The ``ggp`` command line."""
