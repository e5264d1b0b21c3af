"""Process B of CANN's IPC memory samples (see cann_sample_a.py): set its device, enable
peer access from it to A's device (two devices only), report its bare tgid, import A's key
with flag 0 (peer access left to the processes), read A's bytes, write 123 into the first
4 KiB of A's buffer, close. Prints "read" when the bytes read were A's pattern."""

import sys

import acl

SIZE = 1 << 20
PATTERN = bytes(range(256)) * (SIZE // 256)


def check(ret, what):
    if ret != 0:
        print(f"{what} returned {ret}", flush=True)
        raise SystemExit(1)


def main():
    device, peer = int(sys.argv[1]), int(sys.argv[2])
    check(acl.init(), "init")
    check(acl.rt.set_device(device), "set_device")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    if peer != device:
        check(acl.rt.device_can_access_peer(device, peer)[1], "device_can_access_peer")
        check(acl.rt.device_enable_peer_access(peer, 0), "device_enable_peer_access")
    pid, ret = acl.rt.device_get_bare_tgid()
    check(ret, "device_get_bare_tgid")
    print(pid, flush=True)
    key = sys.stdin.readline().strip()
    theirs, ret = acl.rt.ipc_mem_import_by_key(key, 0)
    check(ret, "ipc_mem_import_by_key")
    mine, ret = acl.rt.malloc(SIZE, 0)
    check(ret, "malloc")
    check(acl.rt.memcpy_async(mine, SIZE, theirs, SIZE, 3, stream), "memcpy_async")
    check(acl.rt.memset_async(theirs, SIZE, 123, 4096, stream), "memset_async")
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    host = bytes(SIZE)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(host), SIZE, mine, SIZE, 2), "memcpy d2h")
    check(acl.rt.ipc_mem_close(key), "ipc_mem_close")
    check(acl.rt.free(mine), "free")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    if peer != device:
        check(acl.rt.device_disable_peer_access(peer), "device_disable_peer_access")
    check(acl.rt.reset_device_force(device), "reset_device_force")
    check(acl.finalize(), "finalize")
    print("read" if host == PATTERN else "different bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
