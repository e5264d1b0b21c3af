"""Mutants of ``ascend_p2p_lab/sim/memory.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tests.mutants.base import M, Mutant

MUTANTS: list[Mutant] = [
    M(
        "sim.memory.bytes_to_ptr_copies",
        "sim/memory.py",
        ("        ctypes.memmove(self.address + off, chunk, len(chunk))"),
        ("        self.obj = bytes(self.obj)  # a copy: the caller's bytes stay as they were"),
        ("bytes_to_ptr copies instead of pointing into the bytes object"),
        tests=("tests/sim/test_allocations.py",),
    ),
    M(
        "sim.memory.whole_chunks_unfrozen",
        "sim/memory.py",
        "                entry = schunks[ks + j] = bytes(entry)\n",
        "                pass\n",
        ("a whole-chunk copy shares a private (mutable) chunk instead of freezing it"),
    ),
    M(
        "sim.memory.whole_chunks_one_bump",
        "sim/memory.py",
        ("        dst.version += m  # one bump per chunk, as the loop below\n"),
        "        dst.version += 1\n",
        ("a whole-chunk copy bumps the destination's version once, not per chunk"),
    ),
    M(
        "sim.memory.one_piece_unversioned",
        "sim/memory.py",
        "    dst.version += 1  # what write() counts, then its private chunk\n",
        "    pass\n",
        "a copy inside one chunk counts one version less than the general loop",
        tests=(
            "tests/sim/test_memory.py::test_a_piece_inside_one_chunk_gives_what_the_general_loop_gives",
        ),
    ),
    M(
        "sim.memory.one_piece_source_offset",
        "sim/memory.py",
        "        target[b : b + n] = memoryview(entry)[a : a + n]\n",
        "        target[b : b + n] = memoryview(entry)[b : b + n]\n",
        "a copy inside one chunk reads its source at the destination's offset",
        tests=(
            "tests/sim/test_memory.py::test_a_piece_inside_one_chunk_gives_what_the_general_loop_gives",
        ),
    ),
]
