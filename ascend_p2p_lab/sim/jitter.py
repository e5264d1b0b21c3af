"""The simulator's jitter draws: N(0, 1) values as ``random.gauss`` gives them, the time
factors made of them, and a stable seed per measured point.

Example:
    >>> import random
    >>> draw = normals(random.Random(0))
    >>> draw() == random.Random(0).gauss(0.0, 1.0)
    True
    >>> factor = factors(random.Random(0), 0.02)
    >>> factor() == 1.0 + 0.02 * random.Random(0).gauss(0.0, 1.0)
    True
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator
from functools import partial
from itertools import repeat
from math import cos, log, sin, sqrt, tau


def _standard_normals(rng: random.Random) -> Iterator[float]:
    """``rng.gauss(0.0, 1.0)``, value for value, as a generator.

    The same Box-Muller pairs as CPython's ``random.gauss`` (cos value, then the cached
    sin value), drawn from the same ``rng.random()`` stream, without gauss's per-call
    overhead. :data:`_GAUSS_MATCHES` checks the equality on this interpreter; if it ever
    fails, the engine calls ``rng.gauss`` itself.
    """
    rand = rng.random
    while True:
        x2pi = rand() * tau
        g2rad = sqrt(-2.0 * log(1.0 - rand()))
        yield cos(x2pi) * g2rad
        yield sin(x2pi) * g2rad


def _scaled_normals(rng: random.Random, jitter: float) -> Iterator[float]:
    """``1 + jitter * rng.gauss(0.0, 1.0)``, at least 0.5: :func:`_standard_normals` with
    each value turned into a copy's time factor as it is drawn (the same arithmetic)."""
    rand = rng.random
    while True:
        x2pi = rand() * tau
        g2rad = sqrt(-2.0 * log(1.0 - rand()))
        f = 1.0 + jitter * (cos(x2pi) * g2rad)
        yield f if f > 0.5 else 0.5
        f = 1.0 + jitter * (sin(x2pi) * g2rad)
        yield f if f > 0.5 else 0.5


def _gauss_matches() -> bool:
    a, b = random.Random(0x5EED), random.Random(0x5EED)
    nxt = _standard_normals(b).__next__
    return all(a.gauss(0.0, 1.0) == nxt() for _ in range(257))


_GAUSS_MATCHES = _gauss_matches()


def normals(rng: random.Random) -> Callable[[], float]:
    """N(0, 1) draws for the jitter: the values rng.gauss(0.0, 1.0) gives, in order."""
    return _standard_normals(rng).__next__ if _GAUSS_MATCHES else partial(rng.gauss, 0.0, 1.0)


def factors(rng: random.Random, jitter: float) -> Callable[[], float]:
    """Each copy's time factor in turn: ``1 + jitter * N(0, 1)`` (the draws of
    :func:`normals`), at least 0.5; always 1.0 without jitter (and no draw)."""
    if not jitter:
        return repeat(1.0).__next__
    if _GAUSS_MATCHES:
        return _scaled_normals(rng, jitter).__next__
    normal = normals(rng)

    def factor() -> float:
        f = 1.0 + jitter * normal()
        return f if f > 0.5 else 0.5

    return factor


def draws(factor: Callable[[], float]) -> Iterator[float]:
    """The values ``factor`` gives, in turn, as an iterator: the generator itself when
    ``factor`` is its ``__next__`` (what :func:`factors` returns: taking many at once then
    skips a call per value), else ``iter(factor, None)``.

    Example:
        >>> from itertools import islice
        >>> a, b = factors(random.Random(3), 0.1), factors(random.Random(3), 0.1)
        >>> list(islice(draws(a), 4)) == [b() for _ in range(4)]
        True
    """
    source = getattr(factor, "__self__", None)
    if source is not None and getattr(source, "__next__", None) == factor:
        return source  # type: ignore[no-any-return]
    return iter(factor, None)


def point_seed(seed: int, key: str) -> int:
    """A stable 64-bit seed for one point: a hash of (seed, key), the same in every
    process and Python version (never ``hash()``, which is salted per process).

    Example:
        >>> point_seed(0, "pair/uni/on/p2p/0-1/4096") == point_seed(0, "pair/uni/on/p2p/0-1/4096")
        True
        >>> point_seed(0, "a") != point_seed(1, "a") != point_seed(0, "b")
        True
    """
    digest = hashlib.blake2b(f"{seed}\x00{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")
