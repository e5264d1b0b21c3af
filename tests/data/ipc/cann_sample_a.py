"""Process A of CANN's IPC memory samples, in Python against pyACL (our rendering, not a
copy): hicann/runtime example/1_basic_features/memory/10_ipc_memory_withpid and
11_ipc_memory_withoutpid (both processes on one device), and the memory half of
example/2_advanced_features/notify/1_ipc_notify_withoutpid (A on device 2, B on device 3,
each enabling peer access from its own device only).

    python cann_sample_a.py --device 2 --peer 3 [--withpid]

A allocates and fills a buffer, enables peer access to B's device (two devices only),
exports (flag 1, or flag 0 and a whitelist with --withpid), starts B, hands over the key,
waits, checks that B's write landed in its buffer, closes, frees. Prints "verified".
"""

import subprocess
import sys
from pathlib import Path

import acl

SIZE = 1 << 20
PATTERN = bytes(range(256)) * (SIZE // 256)


def check(ret, what):
    if ret != 0:
        raise SystemExit(f"A: {what} returned {ret}")


def arg(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def main():
    device, peer, withpid = arg("--device", 0), arg("--peer", 0), "--withpid" in sys.argv
    check(acl.init(), "init")
    check(acl.rt.set_device(device), "set_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    if peer != device:
        can, ret = acl.rt.device_can_access_peer(device, peer)
        check(ret, "device_can_access_peer")
        if can != 1:
            raise SystemExit("A: no peer access between the devices")
        check(acl.rt.device_enable_peer_access(peer, 0), "device_enable_peer_access")
    dev_ptr, ret = acl.rt.malloc(SIZE, 0)  # ACL_MEM_MALLOC_HUGE_FIRST, as the sample
    check(ret, "malloc")
    check(acl.rt.memcpy(dev_ptr, SIZE, acl.util.bytes_to_ptr(PATTERN), SIZE, 1), "memcpy")
    key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, SIZE, 65, 0 if withpid else 1)
    check(ret, "ipc_mem_get_export_key")
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("cann_sample_b.py")), str(peer), str(device)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        pid = int(child.stdout.readline())
        if withpid:
            check(acl.rt.ipc_mem_set_import_pid(key, [pid]), "ipc_mem_set_import_pid")
        child.stdin.write(key + "\n")
        child.stdin.flush()
        answer = child.stdout.readline().strip()
        child.wait(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    head = bytes(4096)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(head), 4096, dev_ptr, 4096, 2), "memcpy d2h")
    check(acl.rt.ipc_mem_close(key), "ipc_mem_close")
    check(acl.rt.free(dev_ptr), "free")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    if peer != device:
        check(acl.rt.device_disable_peer_access(peer), "device_disable_peer_access")
    check(acl.rt.reset_device_force(device), "reset_device_force")
    check(acl.finalize(), "finalize")
    written = head == bytes([123]) * 4096
    print("verified" if answer == "read" and written else f"B: {answer}, written: {written}")
    return 0 if answer == "read" and written and child.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
