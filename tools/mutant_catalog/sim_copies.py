"""Mutants of ``ascend_p2p_lab/sim/copies.py`` (see tools/mutants.py)."""

from __future__ import annotations

from tools.mutant_catalog.base import M, Mutant

#: the tests that should catch them
TESTS = ('tests/sim/test_memory.py', 'tests/sim/test_sim.py')

MUTANTS: list[Mutant] = [
    M('sim.copies.sync_same_device_allowed', 'sim/copies.py',
      'if route.link is None and _imported_cross(route):',
      'if False and _imported_cross(route):',
      ('a synchronous copy within one device through an import is '
       'allowed'),
      (
       'tests/sim/test_sim.py',
       'tests/measure/test_processes.py',
       'tests/measure/test_ipcworker.py',
       'tests/runtime/test_runtime.py',
       'tests/sim/test_ipcstate.py',)),
    M('sim.copies.kept_context_survives_reset', 'sim/copies.py',
      '        self.devices.kept.clear()\n',
      '',
      ('a context stays kept after its device was reset '
       '(set_context succeeds)'),
      TESTS),
    M('sim.copies.fast_copy_no_bump', 'sim/copies.py',
      ('                        dreg.version += 1\n'
       '                        dreg.last_copy'),
      '                        dreg.last_copy',
      ("a kept memcpy_async leaves its destination's version as the "
       'copy left it (a later copy out of it may take stale bytes '
       'for current)'),
      (
       'tests/sim/test_memory.py',
       'tests/measure/test_sweep.py',
       'tests/runtime/test_errors.py',
       'tests/sim/test_engine.py',
       'tests/sim/test_jitter.py',
       'tests/sim/test_sim.py',)),
    M('sim.copies.fast_run_unjittered', 'sim/copies.py',
      ('scale = 1.0 + engine.jitter * engine._normal() if '
       'engine.jitter else 1.0\n'),
      'scale = 1.0\n',
      ('a kept memcpy_async that extends a run of copies loses its '
       'jitter factor'),
      TESTS),
    M('sim.copies.fast_run_any_size', 'sim/copies.py',
      'run.resources is res and run.nbytes == nbytes\n',
      'run.resources is res\n',
      ('a kept memcpy_async extends a run of copies of another size '
       'over the same resources'),
      (
       'tests/sim/test_memory.py',
       'tests/sim/test_sim.py',
       'tests/acceptance/test_golden_rows.py',)),
    M('sim.copies.fast_parts_offsets_swapped', 'sim/copies.py',
      'r.dst_region, r.dst_offset, r.src_region, r.src_offset,',
      'r.dst_region, r.src_offset, r.src_region, r.dst_offset,',
      ('a kept memcpy_async reads its source offset for its '
       "destination's and back"),
      TESTS),
]
