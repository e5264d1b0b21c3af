"""The catalog of hand-written mutants (see tools/mutants.py)."""
