"""Mutants of ``ascend_p2p_lab/sim/jitter.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.jitter.reseed_ignores_key",
        "sim/jitter.py",
        ('digest = hashlib.blake2b(f"{seed}\\x00{key}".encode(), digest_size=8).digest()'),
        ('digest = hashlib.blake2b(f"{seed}".encode(), digest_size=8).digest()'),
        "every point gets the same jitter draws",
        tests=(
            "tests/measure/test_checkpoint.py::test_a_resumed_sweep_with_jitter_equals_an_uninterrupted_one",
            "tests/sim/test_extras.py::test_reseed_jitter_makes_the_draws_depend_on_seed_and_key_only",
        ),
    ),
    M(
        "sim.jitter.factor_sin_unclamped",
        "sim/jitter.py",
        ("        f = 1.0 + jitter * (sin(x2pi) * g2rad)\n        yield f if f > 0.5 else 0.5\n"),
        ("        f = 1.0 + jitter * (sin(x2pi) * g2rad)\n        yield f\n"),
        "every second time factor is not clamped at 0.5",
    ),
    M(
        "sim.jitter.draws_any_self",
        "sim/jitter.py",
        '    if source is not None and getattr(source, "__next__", None) == factor:\n',
        "    if source is not None:\n",
        "a bound method's object is taken for the iterator of its values",
        tests=("tests/sim/test_jitter.py::test_draws_take_the_values_the_calls_give_in_turn",),
    ),
]
