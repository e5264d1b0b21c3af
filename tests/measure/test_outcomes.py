"""Tests that kill the mutants of tools/mutants.py the rest of the suite let live.

Each test pins a number, a label or an orientation a user sees, on an asymmetric
fixture (a degraded link, a pair reachable one way only, samples of unequal value), so
that swapping src and dst, two quantiles or two directions cannot pass unnoticed.
See docs/testing.md."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import codes as C
from ascend_p2p_lab.measure import (
    outcomes,
)
from ascend_p2p_lab.runtime import AclError


# ------------------------------------------------------------------ outcomes
@pytest.mark.parametrize(
    "name",
    [
        "ACL_ERROR_RT_LOST_HEARTBEAT",
        "ACL_ERROR_RT_NO_DEVICE",
        "ACL_ERROR_RT_SYS_DMA",
        "ACL_ERROR_RT_DEVICE_TASK_ABORT",
        "ACL_ERROR_RT_STREAM_ABORT",
        "ACL_ERROR_RT_TS_ERROR",
        "ACL_ERROR_RT_COPY_DATA",
        "ACL_ERROR_RT_DEVICE_MEM_ERROR",
        "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR",
        "ACL_ERROR_RT_SUSPECT_DEVICE_MEM_ERROR",
        "ACL_ERROR_RT_LINK_ERROR",
        "ACL_ERROR_RT_SUSPECT_REMOTE_ERROR",
        "ACL_ERROR_RT_SOCKET_CLOSE",
    ],
)
def test_a_broken_device_on_a_direct_copy_is_not_a_refusal(name: str) -> None:
    code = C.ERROR_CODES[name]
    for call in ("acl.rt.memcpy", "acl.rt.memcpy_async"):
        assert outcomes.direct_copy_failure(AclError(call, (), code, "x")).kind == "runtime"
    refused = outcomes.direct_copy_failure(AclError("acl.rt.memcpy", (), 507899, "x"))
    assert refused.kind == "refused"
    assert (
        outcomes.direct_copy_failure(AclError("acl.rt.malloc", (), 507899, "x")).kind == "runtime"
    )


def test_a_verification_failure_names_the_destination_as_the_device_with_wrong_bytes() -> None:
    failure = outcomes.verification_failed(3, 6)
    assert failure.kind == "verification"
    assert failure.message == (
        "data verification failed: the bytes at device 6 differ from device 3's pattern"
    )
    assert (
        "at pinned host memory differ from device 2's"
        in outcomes.verification_failed(2, None).message
    )
