"""ascend_p2p_lab.codes: the ACL return codes by name and number, and the link classes of
``aclrtGetDevicesTopo``'s bitmask."""

from __future__ import annotations

import pytest

from ascend_p2p_lab import codes


def test_every_code_is_named_by_its_first_name_and_success_is_zero() -> None:
    assert codes.ERROR_NAMES[0] == "ACL_SUCCESS" == codes.error_name(codes.ACL_SUCCESS)
    first: dict[int, str] = {}
    for name, value in codes.ERROR_CODES.items():
        first.setdefault(value, name)
    for value, name in first.items():
        assert codes.error_name(value) == (name if value else "ACL_SUCCESS")
    assert codes.error_name(507013) == "ACL_ERROR_RT_SYS_DMA"
    assert codes.ERROR_CODES["ACL_ERROR_RT_SYS_DMA"] == 507013


def test_an_unknown_code_is_named_by_its_number() -> None:
    assert codes.error_name(12345) == "UNKNOWN_ERROR_12345"


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        ((), "NA"),
        (("SIO",), "SIO"),
        (("HCCS",), "HCCS"),
        (("SYS", "PIX"), "PIX"),
        (("HCCS", "SIO", "SYS"), "SIO"),
        (("PHB", "SYS"), "PHB"),
        (("HCCS_SW", "PHB"), "HCCS_SW"),
    ],
)
def test_the_strongest_link_bit_names_the_class(names: tuple[str, ...], expected: str) -> None:
    bits = 0
    for name in names:
        bits |= codes.TOPOLOGY_BITS[name]
    assert codes.topology_from_bits(bits) == expected


def test_the_link_bits_are_distinct() -> None:
    bits = list(codes.TOPOLOGY_BITS.values())
    assert len(set(bits)) == len(bits) and all(b and b & (b - 1) == 0 for b in bits)


@pytest.mark.parametrize(
    ("name", "fault", "lost"),
    [
        ("ACL_ERROR_RT_LINK_ERROR", True, False),  # a broken link, the device still works
        ("ACL_ERROR_RT_NO_DEVICE", True, True),  # gone: it takes no more work
        ("ACL_ERROR_RT_LOST_HEARTBEAT", True, True),
        ("ACL_ERROR_RT_SYS_DMA", True, False),
        ("ACL_ERROR_RT_CONTEXT_NULL", False, False),  # a refused request, no fault
    ],
)
def test_which_codes_are_faults_and_which_lose_the_device(name, fault, lost) -> None:
    """A failed copy's code decides whether it is a refusal, a fault or a lost device."""
    from ascend_p2p_lab.runtime.errors import AclError

    err = AclError("acl.rt.memcpy", (0, 1), codes.ERROR_CODES[name])
    assert (err.device_fault, err.device_lost) == (fault, lost)
    assert (err.code in codes.DEVICE_FAULT_CODES, err.code in codes.DEVICE_LOST_CODES) == (
        fault,
        lost,
    )
