"""Native code for the ground network: C generated from it, built with the system compiler.

- `csource`: the C source of a network (no text from the game reaches it);
- `build`: compiling it through cffi, cached by the hash of the source;
- `rules`: `NativeRules`, the library answering in the compiled reasoner's terms;
- `attach`: building it for a `CompiledGame` (in the background) and attaching it.
"""
