"""The Game Description Language: parsing, validation and reasoning."""
