"""Process A of pyACL's IPC flow (written against pyACL only, as the runtime samples
10_ipc_memory_withpid / 11_ipc_memory_withoutpid do in C): allocate, write, export,
whitelist the importer's pid (unless exported without PID validation), hand over the key,
wait for the importer, close, free.

    python exporter.py [--no-pid] [--device N] [--importer-device M]

Starts importer.py itself (as a launcher would) and talks to it over its stdin/stdout.
"""

import subprocess
import sys
from pathlib import Path

import acl

SIZE = 1 << 20
PATTERN = bytes(range(256)) * (SIZE // 256)


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"exporter: {what} returned {ret}")


def main():
    args = sys.argv[1:]
    no_pid = "--no-pid" in args
    device = int(args[args.index("--device") + 1]) if "--device" in args else 0
    peer_dev = int(args[args.index("--importer-device") + 1]) if "--importer-device" in args else 1
    check(acl.init(), "init")
    check(acl.rt.set_device(device), "set_device")
    dev_ptr, ret = acl.rt.malloc(SIZE, 3)  # ACL_MEM_MALLOC_HUGE_FIRST_P2P
    check(ret, "malloc")
    host = bytearray(PATTERN)
    check(acl.rt.memcpy(dev_ptr, SIZE, acl.util.bytes_to_ptr(host), SIZE, 1), "memcpy h2d")
    key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, SIZE, 65, 1 if no_pid else 0)
    check(ret, "ipc_mem_get_export_key")
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("importer.py")), str(peer_dev)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(child.stdout.readline())
        if not no_pid:
            check(acl.rt.ipc_mem_set_import_pid(key, [pid]), "ipc_mem_set_import_pid")
        child.stdin.write(key + "\n")
        child.stdin.flush()
        answer = child.stdout.readline().strip()
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    check(acl.rt.ipc_mem_close(key), "ipc_mem_close")
    check(acl.rt.free(dev_ptr), "free")
    check(acl.rt.reset_device(device), "reset_device")
    check(acl.finalize(), "finalize")
    print(answer)
    return 0 if answer == "verified" and child.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
