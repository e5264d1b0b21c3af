"""The per-thread recent error message (sim/errors.py): acl.get_recent_err_msg returns
the calling thread's latest text and clears it."""

from __future__ import annotations

from simacl import (
    finish,
    in_thread,
    new_acl,
)

from ascend_p2p_lab import codes as C


# ------------------------------------------------------------------- error text, soc name
def test_recent_err_msg_returns_and_clears_this_threads_text() -> None:
    acl = new_acl()
    assert not acl.get_recent_err_msg()
    assert acl.rt.set_device(99) == C.ACL_ERROR_RT_PARAM_INVALID
    msg = acl.get_recent_err_msg()
    assert "107000" in msg and "99" in msg
    assert not acl.get_recent_err_msg()  # cleared by the read

    assert acl.rt.set_device(70) != 0  # this thread's latest failure...
    assert acl.rt.set_device(8) != 0  # ...is the one reported
    assert "107001" in acl.get_recent_err_msg()

    def other_thread() -> str:
        assert acl.rt.get_device()[-1] == C.ACL_ERROR_RT_CONTEXT_NULL
        return acl.get_recent_err_msg()

    assert acl.rt.reset_device(5) != 0
    assert "107002" in in_thread(other_thread)  # its own error only
    assert "not set" in acl.get_recent_err_msg()  # ours survived the other thread's
    finish(acl)
