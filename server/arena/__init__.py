"""The referee as a server with a browser UI (`ggp arena`)."""
