"""Process B of pyACL's IPC flow: report the bare tgid, import the key, copy the
exporter's buffer into its own device memory, read it back, close. Prints "verified"
when the bytes are the exporter's pattern."""

import sys

import acl

SIZE = 1 << 20
PATTERN = bytes(range(256)) * (SIZE // 256)


def check(ret, what):
    if ret != 0:
        print(f"importer: {what} returned {ret}", flush=True)
        raise SystemExit(1)


def main():
    device = int(sys.argv[1])
    check(acl.init(), "init")
    check(acl.rt.set_device(device), "set_device")
    pid, ret = acl.rt.device_get_bare_tgid()
    check(ret, "device_get_bare_tgid")
    print(pid, flush=True)
    key = sys.stdin.readline().strip()
    peer_ptr, ret = acl.rt.ipc_mem_import_by_key(key, 1)  # enable peer access
    check(ret, "ipc_mem_import_by_key")
    mine, ret = acl.rt.malloc(SIZE, 3)
    check(ret, "malloc")
    stream, ret = acl.rt.create_stream()
    check(ret, "create_stream")
    check(acl.rt.memcpy_async(mine, SIZE, peer_ptr, SIZE, 3, stream), "memcpy_async")
    check(acl.rt.synchronize_stream(stream), "synchronize_stream")
    host = bytearray(SIZE)
    check(acl.rt.memcpy(acl.util.bytes_to_ptr(host), SIZE, mine, SIZE, 2), "memcpy d2h")
    check(acl.rt.ipc_mem_close(key), "ipc_mem_close")
    check(acl.rt.destroy_stream(stream), "destroy_stream")
    check(acl.rt.free(mine), "free")
    check(acl.rt.reset_device(device), "reset_device")
    check(acl.finalize(), "finalize")
    print("verified" if bytes(host) == PATTERN else "different bytes", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
