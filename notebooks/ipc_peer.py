"""Process B of notebook 11: a Python process that imports ``acl`` (pyACL, or the simulator
when ``ascend-p2p-lab sim-path`` is on PYTHONPATH) and makes the pyACL calls its parent
sends, one per line on stdin (a call on ``acl`` such as
``acl.rt.ipc_mem_import_by_key('...', 1)``), printing each result's repr on stdout. A
tutorial aid: it lets the notebook show process B's side call by call. It also knows two
helpers, ``fill(n)`` (the pattern A wrote) and ``read(ptr, n)`` (n bytes of B's own device
memory, through pinned host memory)."""

import sys

import acl


def fill(n):
    return bytes(range(256)) * (n // 256)


def read(ptr, n):
    host, ret = acl.rt.malloc_host(n)
    ret = ret or acl.rt.memcpy(host, n, ptr, n, 2)
    data = acl.util.ptr_to_bytes(host, n) if ret == 0 else b""
    acl.rt.free_host(host)
    return data


for line in sys.stdin:
    try:
        result = eval(line, {"acl": acl, "fill": fill, "read": read})  # the parent's call
    except Exception as exc:  # a Python exception of pyACL (TypeError, ValueError)
        result = f"{type(exc).__name__}: {exc}"
    print(repr(result), flush=True)
