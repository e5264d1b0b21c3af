"""ascend_p2p_lab.collectives.reduction: HCCL's rule for reducing inline in the DMA write
(hcomm ``device_capacity.cc``, docs/reference/hccl-reduction.md), one test per rule, and
the A2 measure of issue 38 item 4: reduce-scatter and all-reduce at 256 MiB follow the
rule, their busbw within 10 % of an alpha-beta estimate built on the same rule."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.collectives.reduction import INLINE, RULES, apply, chip, inline
from ascend_p2p_lab.collectives.select import collective
from ascend_p2p_lab.topology import load_preset

MIB = 1 << 20
ALL_TYPES = ("fp32", "fp16", "bf16", "int8", "int16", "int32", "int64", "uint8", "fp64")
ALL_OPS = ("sum", "max", "min", "prod")


def _inline_set(soc: str) -> set[tuple[str, str]]:
    return {(t, o) for t in ALL_TYPES for o in ALL_OPS if inline(soc, t, o)}


@pytest.mark.parametrize("soc", ["Ascend910B1", "Ascend910B3", "Ascend910B4", "Ascend910_9382"])
def test_a2_and_a3_reduce_six_types_and_sum_max_min_inline(soc: str) -> None:
    """910B and 910_93: fp32, fp16, int8, int16, int32, bf16 with sum, max or min
    (``IsDataTypeSupport`` :90-95, ``IsRedOpSupport`` :111-113); int64, uint8, fp64 and
    prod take a separate pass."""
    six = {"fp32", "fp16", "bf16", "int8", "int16", "int32"}
    assert _inline_set(soc) == {(t, o) for t in six for o in ("sum", "max", "min")}


@pytest.mark.parametrize("soc", ["Ascend910A", "Ascend910B", "Ascend910ProB"])
def test_the_first_910_reduces_fp32_sums_inline_only(soc: str) -> None:
    """910 (A1; a bare ``Ascend910B`` is one of its SoC versions, not an A2): fp32 sum
    only (:96-98, :114-117)."""
    assert chip(soc) == "910" and _inline_set(soc) == {("fp32", "sum")}


def test_the_310p_reduces_its_few_types_inline() -> None:
    """310P3: fp32, int16, fp16 sums (:99-101); 310P1: fp32 sums (:97-98)."""
    assert _inline_set("Ascend310P3") == {("fp32", "sum"), ("int16", "sum"), ("fp16", "sum")}
    assert _inline_set("Ascend310P1") == {("fp32", "sum")}


@pytest.mark.parametrize("soc", ["Ascend310", "Ascend950PR", "", None])
def test_a_chip_hccl_does_not_list_reduces_in_a_separate_pass(soc: str | None) -> None:
    """No entry in HCCL's tables (``default: return false``): never inline."""
    assert chip(soc) is None and _inline_set(soc) == set()  # type: ignore[arg-type]
    assert set(RULES) == {"910B", "910_93", "910", "310P3", "310P1"}


def test_inline_drops_the_pass_and_a_separate_pass_keeps_it() -> None:
    """On the A2 an fp32 sum's reduce-scatter has no reduction pass and says ``inline``;
    an int64 sum (or a prod) keeps its passes and says ``local pass``; a collective with
    nothing to reduce is left as it is."""
    a2 = load_preset("atlas800t-a2")
    rs = collective("reduce_scatter", 8 * MIB, a2)
    assert rs.reduction == INLINE and not any(p.reduces for p in rs.phases)
    for kw in ({"dtype": "int64"}, {"reduce_op": "prod"}):
        kept = collective("reduce_scatter", 8 * MIB, a2, **kw)  # type: ignore[arg-type]
        assert kept.reduction == "local pass" and sum(len(p.reduces) for p in kept.phases) == 8
        assert apply(kept, "Ascend910B3") == rs  # the same moves, without the passes
    ag = collective("all_gather", 8 * MIB, a2)
    assert apply(ag, "Ascend910B3") is ag and ag.reduction == "local pass"


def _alpha_beta_busbw(op: str, size: int) -> float:
    """An estimate of the A2 mesh on 8 ranks made here, from the preset's numbers alone,
    on HCCL's rule (fp32 sum: inline, no gamma term): reduce-scatter = alpha + (n/p) /
    write rate on all 7 links at once (plus the receivers' wait on the writers' events);
    all-reduce = that, then an all-gather alpha + (n/p) / read rate (Mesh.md)."""
    a2 = load_preset("atlas800t-a2")
    hccs, p = a2.link_classes["HCCS"], 8
    alpha = a2.cross_device_wait_us + hccs.latency_us
    write = hccs.bandwidth_GBps * hccs.push_efficiency * 1e3  # bytes per us
    read = hccs.bandwidth_GBps * hccs.pull_efficiency * 1e3
    chunk = size / p
    t = alpha + a2.cross_device_wait_us + chunk / write
    if op == "all_reduce":
        t += alpha + chunk / read
    factor = 2 * (p - 1) / p if op == "all_reduce" else (p - 1) / p
    return size / (t * 1e3) * factor


def test_a2_reduce_scatter_and_all_reduce_meet_the_alpha_beta_estimate_on_the_rule() -> None:
    """Issue 38 item 4's measure: A2, 8 ranks, 256 MiB, on the simulator: both ops reduce
    inline (no pass) and their busbw is within 10 % of the alpha-beta estimate built on
    the same rule (with the old separate pass reduce-scatter fell 18 % short of it)."""
    from ascend_p2p_lab.measure import sweep
    from ascend_p2p_lab.runtime import open_runtime

    ops = ["reduce_scatter", "all_reduce"]
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep(
            rt, operations=ops, sizes=[256 * MIB], samples=1, warmup=1, progress=False
        ).samples
    rows = run[run["operation"].isin(ops) & run["phase"].isna()].set_index("operation")
    for op in ops:
        assert rows.loc[op, "reduction"] == INLINE and rows.loc[op, "algorithm"] == "mesh"
        estimate = _alpha_beta_busbw(op, 256 * MIB)
        assert rows.loc[op, "busbw_GBps"] == pytest.approx(estimate, rel=0.10), op
