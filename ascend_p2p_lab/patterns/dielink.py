"""A test over the A3's links between the two dies of a card: the die link as a dimension.

The two dies of an A3 card are joined by SIO and by an HCCS lane (docs/die-links.md). A
test of one copy between twin dies may take either (``sio``: the default path, named;
``hccs``: through an aclrtMemMapSelectedLink mapping) or both at once (``both``, the
"dual path" of hicann/shmem's ``examples/hccs_sio_link``): its bytes split, ``split`` of
them over SIO and the rest over HCCS, two copies on two streams of the initiator timed
over one window, one row of the whole size over the window.

Example:
    >>> from ascend_p2p_lab.patterns import make_test
    >>> t = over_die_link(make_test("2-3", ["2->3"], 16).at(values="each"), "both", 0.6)
    >>> t.name, t.values, t.die_link, t.die_split, [str(x) for x in t.transfers]
    ('2-3/both/0.6', 'sum', 'both', 0.6, ['2->3', '2->3'])
    >>> lanes(t), part_sizes(t, 1000)
    (('sio', 'hccs'), (600, 400))
    >>> part_offsets(t, 1000), part_sizes(over_die_link(t, "hccs"), 1000)
    ((0, 600), (1000,))
"""

from __future__ import annotations

from dataclasses import replace

from ..vocab import DIE_BOTH, DIE_LINK_CHOICES, DIE_LINKS
from .model import SUM, TRANSFERS, WINDOW, Test, TransferError

#: SIO's share of a ``both`` test's bytes when none is given: hicann/shmem's dual path
#: (3/5 on SIO, 2/5 on HCCS).
DEFAULT_SPLIT = 0.6
#: The device buffers are split on this boundary (a ``both`` test's SIO part is rounded
#: to it, so that both parts start aligned).
SPLIT_ALIGN = 4096


def over_die_link(test: Test, die_link: str, split: float | None = None) -> Test:
    """The test of one copy, ``test``, over ``die_link`` (``split``: SIO's share of a
    ``both`` test, default :data:`DEFAULT_SPLIT`); its name gains the die link (and the
    split), so its key, checkpoint and jitter seed are its own."""
    if die_link not in DIE_LINK_CHOICES:
        raise TransferError(
            f"unknown die link {die_link!r}; choose one of {', '.join(DIE_LINK_CHOICES)}"
        )
    t = test.transfers[0]
    if len({(x.src, x.dst, x.by) for x in test.transfers}) != 1 or t.peer_flow is None:
        raise TransferError(
            f"test {test.name!r}: a die link is chosen for one copy between two devices"
        )
    base = _base(test)
    if die_link != DIE_BOTH:
        if split is not None:
            raise TransferError(f"a split is given only with die link both, not {die_link}")
        return replace(test, name=f"{base}/{die_link}", transfers=(t,), die_link=die_link)
    share = DEFAULT_SPLIT if split is None else split
    if not 0 < share < 1:
        raise TransferError(f"the die split is SIO's share of the bytes, in (0, 1); got {share}")
    return replace(
        test,
        name=f"{base}/both/{share:g}",
        transfers=(t, t),
        timing=WINDOW,
        values=test.values if test.values == TRANSFERS else SUM,  # a test file's: its own
        die_link=DIE_BOTH,
        die_split=share,
    )


def _base(test: Test) -> str:
    """The name of the test before a die link was chosen for it (without what
    :func:`over_die_link` adds: ``/hccs``, ``/both/0.6``)."""
    split = f"/{test.die_split:g}" if test.die_split is not None else ""
    return test.name.removesuffix(f"/{test.die_link}{split}" if test.die_link else "")


def lanes(test: Test) -> tuple[str, ...]:
    """The die link of each transfer of a die-link test (empty for any other test)."""
    if test.die_link == DIE_BOTH:
        return DIE_LINKS
    return (test.die_link,) if test.die_link else ()


def part_sizes(test: Test, size: int) -> tuple[int, ...]:
    """The bytes each transfer copies at size: all of them, except in a ``both`` test
    (SIO's share, rounded down to :data:`SPLIT_ALIGN` and kept inside (0, size), and
    the rest)."""
    if test.die_link != DIE_BOTH or test.die_split is None:
        return (size,) * len(test.transfers)
    sio = int(size * test.die_split) // SPLIT_ALIGN * SPLIT_ALIGN
    if not 0 < sio < size:
        sio = min(max(round(size * test.die_split), 1), size - 1)
    return (sio, size - sio)


def part_offsets(test: Test, size: int) -> tuple[int, ...]:
    """Where each transfer's bytes start in the buffers (a ``both`` test's HCCS part
    follows its SIO part)."""
    parts = part_sizes(test, size)
    return (
        tuple(sum(parts[:k]) for k in range(len(parts)))
        if test.die_link == DIE_BOTH
        else (0,) * len(parts)
    )
