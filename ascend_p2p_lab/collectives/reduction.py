"""How HCCL reduces: inline in the DMA write, or in a separate pass after the copies.

HCCL asks ``IsSupportSDMAReduce(input, output, dataType, op)`` (hcomm
``src/legacy/ascend910/platform/common/device_capacity.cc:124-130``): the SDMA engine
reduces as it writes (``HcclReduceAsync`` with ``INLINE_REDUCE_BIT``) when the chip, the
data type and the operation are all in its tables and the two buffers are equally
aligned. Where it does not, a reducing receive lands in a scratch buffer and a separate
``HcclReduceAsync`` on the device (``LINK_ONCHIP``) combines it (the ``Reducer``'s last
branch, ``algorithm/base/alg_template/component/reducer.cc:96-118``). The evidence, line by
line, is in ``docs/reference/hccl-reduction.md``.

=========  ===========================================  ================  ==============
chip       data types                                   operations        alignment
=========  ===========================================  ================  ==============
910B, 910  fp32, fp16, int8, int16, int32, bf16          sum, max, min     none (1 byte)
_93
910        fp32                                         sum               128 B
310P3      fp32, int16, fp16                            sum               2 B
310P1      fp32                                         sum               2 B
others     none (no entry: a separate pass)
=========  ===========================================  ================  ==============

The toolkit's buffers are allocation-aligned, so the alignment test always passes; the
rule then depends on the server's SoC (:func:`chip`), the data type and the operation
(hccl_test's defaults: fp32, sum). A collective built for a chip that reduces inline has
no reduction pass (:func:`apply`): its reducing copies combine as they land, at the rate
of the copy (the rate of an inline-reducing write is not published: taken as the write's).

Example:
    >>> inline("Ascend910B3"), inline("Ascend910_9382", "bf16", "max")
    (True, True)
    >>> inline("Ascend910A", "fp16"), inline("Ascend950PR"), inline("Ascend310P3", "int16")
    (False, False, True)
"""

from __future__ import annotations

from dataclasses import replace

from .phases import Collective

#: How a row's reduction is done (the ``reduction`` column).
INLINE = "inline"
#: hccl_test's defaults (``-d fp32``, ``-o sum``; hicann/oam-tools ``hccl_test`` options).
DTYPE, OP = "fp32", "sum"

_A23_TYPES = frozenset({"fp32", "fp16", "int8", "int16", "int32", "bf16"})
_MIN_MAX_SUM = frozenset({"sum", "max", "min"})
#: HCCL's device type -> (data types, operations) the SDMA engine reduces inline
#: (``IsDataTypeSupport`` device_capacity.cc:87-106, ``IsRedOpSupport`` :108-122).
RULES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "910B": (_A23_TYPES, _MIN_MAX_SUM),
    "910_93": (_A23_TYPES, _MIN_MAX_SUM),
    "910": (frozenset({"fp32"}), frozenset({"sum"})),
    "310P3": (frozenset({"fp32", "int16", "fp16"}), frozenset({"sum"})),
    "310P1": (frozenset({"fp32"}), frozenset({"sum"})),
}


def chip(soc_name: str | None) -> str | None:
    """HCCL's device type of a SoC name (``Ascend910B3`` -> ``910B``, ``Ascend910_9382``
    -> ``910_93``, ``Ascend910A`` -> ``910``, ``Ascend310P3`` -> ``310P3``); None for a
    chip HCCL's tables do not list (an Ascend 310, a 950).

    Example:
        >>> [chip(s) for s in ("Ascend910B4", "Ascend910_9391", "Ascend910", "Ascend310")]
        ['910B', '910_93', '910', None]
    """
    name = (soc_name or "").removeprefix("Ascend")
    if name.startswith("910_93"):
        return "910_93"
    if name.startswith("910B") and name[4:5].isdigit():  # 910B1..4; a bare 910B is an A1
        return "910B"
    if name in ("910", "910A", "910B", "910ProA", "910ProB", "910PremiumA"):
        return "910"
    if name.startswith(("310P3", "310P1")):
        return name[:5]
    return None


def inline(soc_name: str | None, dtype: str = DTYPE, op: str = OP) -> bool:
    """Whether HCCL reduces inline in the DMA write on this SoC, for this data type and
    reduction (see the module doc)."""
    rule = RULES.get(chip(soc_name) or "")
    return rule is not None and dtype in rule[0] and op in rule[1]


def apply(coll: Collective, soc_name: str | None, dtype: str = DTYPE, op: str = OP) -> Collective:
    """The collective as HCCL runs it on this SoC: inline (no reduction pass; the rows
    say ``inline``) where :func:`inline` says so, else as built (``local pass``)."""
    if not any(p.reduces for p in coll.phases) or not inline(soc_name, dtype, op):
        return coll
    phases = tuple(replace(p, reduces=()) for p in coll.phases)
    return replace(coll, phases=phases, reduction=INLINE)
