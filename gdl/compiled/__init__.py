"""The fast path: the ground network as generated code behind the `GdlGame` interface.

- `codegen`: Python source generated from the network (no text from the game reaches it);
- `compile`: grounding, network and code within one budget (`compile_rules`);
- `compiled_game`: `CompiledGame`, a `GdlGame` whose questions run the generated code;
- `trial`: a measured trial between the compiled game and the interpreter.
"""
