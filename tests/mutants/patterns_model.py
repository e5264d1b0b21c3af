"""Mutants of ``ascend_p2p_lab/patterns/model.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "patterns.model.fanout_mixed_label",
        "patterns/model.py",
        'return links.pop() if len(links) == 1 else "mixed"',
        "return sorted(links)[0]",
        ("a fan-out over several link classes is labelled with one of them"),
    ),
    M(
        "patterns.model.unreachable_reversed",
        "patterns/model.py",
        (
            '        f"cannot access peer: aclrtDeviceCanAccessPeer({src}, {dst}) = 0 (link {link})",'
        ),
        (
            '        f"cannot access peer: aclrtDeviceCanAccessPeer({dst}, {src}) = 0 (link {link})",'
        ),
        "unreachable reason names the reverse direction",
    ),
    M(
        "patterns.model.push_reads_as_pull",
        "patterns/model.py",
        ("if self.by == self.src:\n            return SRC"),
        ("if self.by == self.src:\n            return DST"),
        "a push is labelled a pull",
    ),
    M(
        "patterns.model.self_copy_allowed",
        "patterns/model.py",
        (
            "if self.src is None or self.dst is None or self.src == "
            "self.dst:\n"
            "            return None"
        ),
        ("if self.src is None or self.dst is None:\n            return None"),
        "a copy within one device asks for peer access to itself",
    ),
    M(
        "patterns.model.by_ignored",
        "patterns/model.py",
        "    return Transfer(src, dst, by)\n",
        ("    return Transfer(src, dst, device_end)  # type: ignore[arg-type]\n"),
        "'by N' is ignored: every copy is pulled",
    ),
]
