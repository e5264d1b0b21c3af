"""The argument format of every simulated pyACL call, declared once and checked in one place.

pyACL's C wrapper parses each call's arguments with ``PyArg_ParseTuple`` and a format
string (``"kkkki"`` for ``acl.rt.memcpy``, ``"iI"`` for ``device_enable_peer_access``);
a wrong type raises a Python exception before any ACL code runs. Each simulated call
declares the same beside its method (:func:`.part.pyacl`), one letter per argument:

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
    >>> check = checker(Call("rt.memcpy", "kkkki"))
    >>> check((1, 4096, 2, 4096, 3)) is None
    True
    >>> check((1, 4096, 2.0, 4096, 3))
    Traceback (most recent call last):
    ...
    TypeError: memcpy: an integer is required (got type float)
    >>> checker(Call("rt.device_enable_peer_access", "iI", labels={1: "flags"}))((1, "0"))
    Traceback (most recent call last):
    ...
    TypeError: flags: an integer is required (got type str)
"""

from __future__ import annotations

from collections.abc import Callable

from .part import Call

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


def checker(call: Call) -> Check:
    """The argument check of ``call`` (its declared format): raises TypeError or returns
    None."""
    unit_list, need = units(call.fmt)
    labels_of = call.labels
    func = labels_of.get("", call.name.rsplit(".", 1)[-1])
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
