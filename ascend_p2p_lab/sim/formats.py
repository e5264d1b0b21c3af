"""The argument format of every simulated pyACL call, declared once and checked in one place.

pyACL's C wrapper parses each call's arguments with ``PyArg_ParseTuple`` and a format
string (``"kkkki"`` for ``acl.rt.memcpy``, ``"iI"`` for ``device_enable_peer_access``);
a wrong type raises a Python exception before any ACL code runs. :data:`FORMATS` declares
the same per call, one letter per argument:

- ``i``, ``I``, ``k``: a C ``int``, ``unsigned int``, ``unsigned long`` (device ids and
  enum values, flags, pointers/sizes/handles). The simulator checks the Python type
  only: any ``int`` passes (``bool`` is one), anything else raises
  ``TypeError("<label>: an integer is required (got type float)")``; it does not model
  the C range checks.
- ``K``: a C ``unsigned long long`` (64-bit flags), checked like ``k``.
- ``z``: a ``str`` or ``None`` (``acl.init``'s optional config path); ``s``: a ``str``
  (``acl.app_log``'s message).
- ``O``: any object (the call checks it itself, as ``ipc_mem_set_import_pid``'s list).
- ``y*``: a bytes-like object (``acl.util.bytes_to_ptr``).
- ``|``: the arguments after it are optional.

A call with the wrong number of arguments raises ``TypeError`` the way
``PyArg_ParseTuple`` words it ("set_device() takes exactly 1 argument (2 given)").

Example:
    >>> check = checker("rt.memcpy")
    >>> check((1, 4096, 2, 4096, 3)) is None
    True
    >>> check((1, 4096, 2.0, 4096, 3))
    Traceback (most recent call last):
    ...
    TypeError: memcpy: an integer is required (got type float)
    >>> checker("rt.device_enable_peer_access")((1, "0"))
    Traceback (most recent call last):
    ...
    TypeError: flags: an integer is required (got type str)
"""

from __future__ import annotations

from collections.abc import Callable

#: The ``acl.rt`` calls the simulator implements, in the order of pyACL's method tables.
RT_CALLS = (
    "set_device",
    "reset_device",
    "reset_device_force",
    "get_device",
    "get_device_count",
    "get_context",
    "set_context",
    "create_context",
    "destroy_context",
    "get_run_mode",
    "get_devices_topo",
    "get_device_info",
    "device_can_access_peer",
    "device_enable_peer_access",
    "device_disable_peer_access",
    "device_peer_access_status",
    "malloc",
    "free",
    "malloc_host",
    "free_host",
    "memset",
    "memset_async",
    "memcpy",
    "memcpy_async",
    "get_mem_info",
    "create_stream",
    "destroy_stream",
    "synchronize_stream",
    "synchronize_device",
    "create_event",
    "create_event_with_flag",
    "create_event_ex_with_flag",
    "destroy_event",
    "record_event",
    "stream_wait_event",
    "synchronize_event",
    "event_elapsed_time",
    "event_get_timestamp",
    *(
        "ipc_mem_get_export_key",
        "ipc_mem_set_import_pid",
        "ipc_mem_import_by_key",
        "ipc_mem_close",
        "device_get_bare_tgid",
    ),
    *("reserve_mem_address", "release_mem_address", "unmap_mem", "mem_map_selected_link"),
)
#: The top-level ``acl`` calls.
TOP_CALLS = ("init", "finalize", "get_soc_name", "get_version", "get_recent_err_msg", "app_log")
#: The ``acl.util`` calls.
UTIL_CALLS = ("bytes_to_ptr", "ptr_to_bytes", "numpy_to_ptr")
#: The ``acl.media`` calls (DVPP memory only: the media processing itself is not simulated).
MEDIA_CALLS = ("dvpp_malloc", "dvpp_free")
#: Every namespace the simulated ``acl`` has, and its calls ("" is the top level).
NAMESPACES: dict[str, tuple[str, ...]] = {}  # filled below, after RT_CALLS
#: pyACL functions that only newer CANN releases have; ``api_level="old"`` hides them.
NEWER_CALLS = (
    "device_peer_access_status",
    "get_devices_topo",
    "reset_device_force",
    "create_event_ex_with_flag",
    "event_get_timestamp",
    # IPC memory: pyACL documents them from CANN 8.3.RC1.alpha002
    "ipc_mem_get_export_key",
    "ipc_mem_set_import_pid",
    "ipc_mem_import_by_key",
    "ipc_mem_close",
    "device_get_bare_tgid",
    # virtual memory (rt_memory.cpp) and the die-link choice (CANN 9.1, A3; sim.dielinks)
    "reserve_mem_address",
    "release_mem_address",
    "unmap_mem",
    "mem_map_selected_link",
)

#: The declared argument format of every call (see the module docstring).
FORMATS: dict[str, str] = {
    "init": "|z",
    "finalize": "",
    "get_soc_name": "",
    "get_version": "",
    "get_recent_err_msg": "",
    "app_log": "is",  # WrapAclAppLog
    "rt.set_device": "i",
    "rt.reset_device": "i",
    "rt.reset_device_force": "i",
    "rt.get_device": "",
    "rt.get_device_count": "",
    "rt.get_context": "",
    "rt.set_context": "k",
    # rt_context.cpp: WrapAclRtCreateContext "i" -> "ki", WrapAclRtDestroyContext "k" -> "i"
    "rt.create_context": "i",
    "rt.destroy_context": "k",
    "rt.get_run_mode": "",  # rt_device.cpp: WrapAclRtGetRunMode -> "ii"
    "rt.get_devices_topo": "ii",
    "rt.get_device_info": "ii",
    "rt.device_can_access_peer": "ii",
    "rt.device_enable_peer_access": "iI",
    "rt.device_disable_peer_access": "i",
    "rt.device_peer_access_status": "ii",
    "rt.malloc": "ki",
    "rt.free": "k",
    "rt.malloc_host": "k",
    "rt.free_host": "k",
    "rt.memset": "kkik",
    "rt.memset_async": "kkikk",  # WrapAclRtMemsetAsync
    "rt.memcpy": "kkkki",
    "rt.memcpy_async": "kkkkik",
    "rt.get_mem_info": "i",
    "rt.create_stream": "",
    "rt.destroy_stream": "k",
    "rt.synchronize_stream": "k",
    "rt.synchronize_device": "",
    "rt.create_event": "",
    "rt.create_event_with_flag": "I",
    "rt.create_event_ex_with_flag": "I",
    "rt.destroy_event": "k",
    "rt.record_event": "kk",
    "rt.stream_wait_event": "kk",
    "rt.synchronize_event": "k",
    "rt.event_elapsed_time": "kk",
    "rt.event_get_timestamp": "k",
    # IPC memory (rt_memory.cpp: WrapAclRtIpcMemGetExportKey ...; rt_device: BareTgid)
    "rt.ipc_mem_get_export_key": "kkkK",
    "rt.ipc_mem_set_import_pid": "sO",
    "rt.ipc_mem_import_by_key": "sK",
    "rt.ipc_mem_close": "s",
    "rt.device_get_bare_tgid": "",
    # rt_memory.cpp: WrapAclRtReserveMemAddress "kkkK" -> "ki", WrapAclRtReleaseMemAddress
    # and WrapAclRtUnmapMem "k" -> "i"; mem_map_selected_link has no pyACL wrapper: the
    # simulator's own, aclrtMemMapSelectedLink's (void*, size_t, void*, uint32_t)
    "rt.reserve_mem_address": "kkkK",
    "rt.release_mem_address": "k",
    "rt.unmap_mem": "k",
    "rt.mem_map_selected_link": "kkkI",
    "util.bytes_to_ptr": "y*",
    "util.numpy_to_ptr": "y*",
    "util.ptr_to_bytes": "kk",
    # media_common.cpp: WrapAclDvppMalloc "k" -> "ki", WrapAclDvppFree "k" -> "i"
    "media.dvpp_malloc": "k",
    "media.dvpp_free": "k",
}
NAMESPACES.update({"": TOP_CALLS, "rt": RT_CALLS, "util": UTIL_CALLS, "media": MEDIA_CALLS})

#: The name a call's errors give, where it is not the call's own (position -> label for
#: one argument; "" for the whole call). numpy_to_ptr is bytes_to_ptr under another name.
LABELS: dict[str, dict[int | str, str]] = {
    "rt.device_enable_peer_access": {1: "flags"},
    "util.numpy_to_ptr": {"": "bytes_to_ptr"},
}

_INT_UNITS = frozenset("iIkK")
Check = Callable[[tuple], None]


def units(fmt: str) -> tuple[list[str], int]:
    """A format's argument units and how many are required: ``"|z"`` -> (["z"], 0)."""
    out: list[str] = []
    required = -1
    i = 0
    while i < len(fmt):
        c = fmt[i]
        if c == "|":
            required = len(out)
        elif c == "y" and fmt[i + 1 : i + 2] == "*":
            out.append("y*")
            i += 1
        elif c in _INT_UNITS or c in "zsO":
            out.append(c)
        else:
            raise ValueError(f"unknown format unit {c!r} in {fmt!r}")
        i += 1
    return out, (len(out) if required < 0 else required)


def _arity_error(func: str, need: int, most: int, given: int) -> TypeError:
    """What PyArg_ParseTuple raises for a wrong number of arguments."""
    if need == most == 0:
        return TypeError(f"{func}() takes no arguments ({given} given)")
    if need == most:
        how = "exactly"
    else:
        how, most = ("at least", need) if given < need else ("at most", most)
    return TypeError(
        f"{func}() takes {how} {most} argument{'s' if most != 1 else ''} ({given} given)"
    )


def _not_int(label: str, value: object) -> TypeError:
    return TypeError(f"{label}: an integer is required (got type {type(value).__name__})")


def int_arity(check: Check) -> int | None:
    """How many arguments a check made by :func:`checker` wants when they are all C
    integers (every ``i``, ``I``, ``k``, ``K``, none optional), else None: a caller may
    then pass exactly that many plain ints without calling it."""
    return getattr(check, "int_arity", None)


def checker(call: str) -> Check:
    """The argument check of ``call`` (a key of :data:`FORMATS`): raises TypeError or
    returns None."""
    unit_list, need = units(FORMATS[call])
    labels_of = LABELS.get(call, {})
    func = labels_of.get("", call.rsplit(".", 1)[-1])
    labels = tuple(labels_of.get(i, func) for i in range(len(unit_list)))
    most = len(unit_list)

    if all(u in _INT_UNITS for u in unit_list) and need == most:

        def check_ints(args: tuple) -> None:
            if len(args) != most:
                raise _arity_error(func, need, most, len(args))
            for value in args:
                if type(value) is not int:  # rare (bool, IntEnum, numpy ints): look closer
                    for other, label in zip(args, labels):
                        if not isinstance(other, int):
                            raise _not_int(label, other)
                    return

        check_ints.int_arity = most  # type: ignore[attr-defined]  # see int_arity()
        return check_ints

    def check(args: tuple) -> None:
        if not need <= len(args) <= most:
            raise _arity_error(func, need, most, len(args))
        for pos, (value, unit) in enumerate(zip(args, unit_list)):
            if unit == "O":
                continue
            if unit in "zs":
                if not isinstance(value, str) and (unit == "s" or value is not None):
                    raise TypeError(f"{func}(): argument {pos + 1} must be str")
            elif unit == "y*":
                try:
                    memoryview(value)  # type: ignore[arg-type]
                except TypeError:
                    raise TypeError(f"{func}(): a bytes-like object is required") from None
            elif type(value) is not int and not isinstance(value, int):
                raise _not_int(labels[pos], value)

    return check
