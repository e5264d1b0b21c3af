"""Simulated memory: an address space of regions whose bytes really move.

Device and pinned-host allocations are *chunked*: 1 MiB chunks that are either a fill
byte (untouched memory, or a memset), an immutable ``bytes`` shared between buffers
after a whole-chunk copy, or a private ``bytearray``. So a 1 GiB buffer costs nothing
until someone writes distinct data into it, and copying it shares chunks instead of
duplicating them (copy on write). Buffers given by the user (``bytes_to_ptr``) are
*views* over the caller's object.

Example:
    >>> space = AddressSpace()
    >>> a = space.add(ChunkedRegion(space.next_base("host", 0, 16), 16, "host", None))
    >>> b = space.add(ChunkedRegion(space.next_base("host", 0, 16), 16, "host", None))
    >>> a.write(0, b"0123456789abcdef"); copy_bytes(b, 0, a, 4, 8); b.read(0, 8)
    b'456789ab'
"""

from __future__ import annotations

import bisect
import ctypes

_CHUNK_BITS = 20
CHUNK = 1 << _CHUNK_BITS
_IN_CHUNK = CHUNK - 1  # the bits of an offset within its chunk
_DEVICE_BASE = 0x1000_0000_0000
_DEVICE_STRIDE = 1 << 40
_HOST_BASE = 0x7F00_0000_0000
_VIEW_BASE = 0x7E00_0000_0000
_RESERVED_BASE = 0x7D00_0000_0000  # aclrtReserveMemAddress's ranges (sim.dielinks)
_ALIGN = 2 << 20  # every allocation starts on a 2 MiB boundary (also 64-byte aligned)


class ChunkedRegion:
    """A sparse, copy-on-write buffer (device memory or pinned host memory)."""

    __slots__ = ("base", "chunks", "device", "kind", "last_copy", "size", "version")
    #: copy_bytes may skip a repeat of the copy that last wrote it (see copy_bytes)
    memoizable = True
    #: not IPC memory (ipc.SharedRegion says otherwise): class attributes, so the copy
    #: checks read them without getattr's missing-attribute exception
    imported = cross_device = False

    def __init__(self, base: int, size: int, kind: str, device: int | None) -> None:
        self.base, self.size, self.kind, self.device = base, size, kind, device
        self.chunks: dict[int, int | bytes | bytearray] = {}
        self.version = 0  # bumped by every change of contents
        self.last_copy: tuple | None = None  # (source, offsets, size, versions) of the last copy in

    def _len(self, k: int) -> int:
        return min(CHUNK, self.size - k * CHUNK)

    def _private(self, k: int) -> bytearray:
        self.version += 1
        entry = self.chunks.get(k, 0)
        if isinstance(entry, bytearray):
            return entry
        if isinstance(entry, int):
            n = self._len(k)
            ba = bytearray(n) if entry == 0 else bytearray(bytes((entry,)) * n)
        else:
            ba = bytearray(entry)
        self.chunks[k] = ba
        return ba

    def read(self, off: int, n: int) -> bytes:
        """The n bytes at offset off."""
        if n > 0:
            k, a = divmod(off, CHUNK)
            if a + n <= self._len(k):  # within one chunk: one copy (or none)
                entry = self.chunks.get(k, 0)
                if isinstance(entry, int):
                    return bytes((entry,)) * n if entry else bytes(n)
                if a == 0 and n == len(entry) and type(entry) is bytes:
                    return entry
                return bytes(memoryview(entry)[a : a + n])
        out = bytearray(n)
        view = memoryview(out)  # slices assigned through a view are copied once
        pos = 0
        while pos < n:
            k, a = divmod(off + pos, CHUNK)
            seg = min(n - pos, self._len(k) - a)
            entry = self.chunks.get(k, 0)
            if isinstance(entry, int):
                if entry:
                    view[pos : pos + seg] = bytes((entry,)) * seg
            else:
                view[pos : pos + seg] = memoryview(entry)[a : a + seg]
            pos += seg
        view.release()
        return bytes(out)

    def write(self, off: int, data: bytes | bytearray | memoryview) -> None:
        """Write data at offset off."""
        n = len(data)
        self.version += 1
        mv = memoryview(data).cast("B")
        pos = 0
        while pos < n:
            k, a = divmod(off + pos, CHUNK)
            clen = self._len(k)
            seg = min(n - pos, clen - a)
            if a == 0 and seg == clen:
                self.chunks[k] = bytes(mv[pos : pos + seg])
            else:
                memoryview(self._private(k))[a : a + seg] = mv[pos : pos + seg]
            pos += seg

    def fill(self, off: int, n: int, value: int) -> None:
        """Set n bytes at offset off to value (what memset does)."""
        value &= 0xFF
        self.version += 1
        chunks, size = self.chunks, self.size
        pos = 0
        while pos < n:
            k, a = divmod(off + pos, CHUNK)
            clen = size - k * CHUNK  # self._len(k), inlined
            if clen > CHUNK:
                clen = CHUNK
            seg = min(n - pos, clen - a)
            if a == 0 and seg == clen:
                # this and every following full-size chunk the range covers, at once
                m = min((n - pos) // CHUNK, size // CHUNK - k)
                if m > 1:
                    chunks.update(dict.fromkeys(range(k, k + m), value))
                    pos += m * CHUNK
                    continue
                chunks[k] = value
            else:
                fill = _ZEROS[:seg] if value == 0 else bytes((value,)) * seg
                memoryview(self._private(k))[a : a + seg] = fill
            pos += seg

    @property
    def resident_bytes(self) -> int:
        """Host RAM the simulator spends on this buffer's distinct data."""
        return sum(len(e) for e in self.chunks.values() if not isinstance(e, int))


#: a chunk of zeros, sliced (no copy) for the zero fills of part of a chunk
_ZEROS = memoryview(bytes(CHUNK))

_BYTES_DATA = ctypes.pythonapi.PyBytes_AsString
_BYTES_DATA.restype, _BYTES_DATA.argtypes = ctypes.c_void_p, [ctypes.py_object]


class ViewRegion:
    """A region over a caller's buffer (``acl.util.bytes_to_ptr``).

    pyACL's ``bytes_to_ptr`` returns the address of a ``bytes`` object's own characters
    (``PyBytes_AsString``), so a copy into the pointer changes the ``bytes`` object the
    script holds, immutable as Python calls it (AclLite reads it back with
    ``numpy.frombuffer``). A view over ``bytes`` writes there too; a writable buffer is
    written through its memoryview. Only a 1-byte ``bytes`` is refused (PermissionError):
    CPython shares those between every user of the same character.
    """

    __slots__ = ("address", "base", "device", "kind", "last_copy", "obj", "size", "version", "view")
    memoizable = False  # the caller may change its object at any time
    imported = cross_device = False  # not IPC memory (see ChunkedRegion)

    def __init__(self, base: int, obj: object) -> None:
        self.obj = obj
        self.view = memoryview(obj).cast("B")  # type: ignore[arg-type]
        self.base, self.size, self.kind, self.device = base, self.view.nbytes, "view", None
        self.version, self.last_copy = 0, None  # a caller may change the object: never memoized
        #: where a read-only bytes object keeps its characters (None: write the view)
        self.address = (
            _BYTES_DATA(obj)
            if self.view.readonly and isinstance(obj, bytes) and len(obj) > 1
            else None
        )

    def read(self, off: int, n: int) -> bytes:
        return bytes(self.view[off : off + n])

    def write(self, off: int, data: bytes | bytearray | memoryview) -> None:
        if not self.view.readonly:
            self.view[off : off + len(data)] = memoryview(data).cast("B")
            return
        if self.address is None:
            raise PermissionError(
                "the object behind this pointer is read-only "
                f"({type(self.obj).__name__} of {self.size} byte(s))"
            )
        chunk = bytes(memoryview(data).cast("B"))
        if off < 0 or off + len(chunk) > self.size:
            raise ValueError(f"{len(chunk)} bytes at offset {off} overrun {self.size}")
        ctypes.memmove(self.address + off, chunk, len(chunk))

    def fill(self, off: int, n: int, value: int) -> None:
        self.write(off, bytes((value & 0xFF,)) * n)


Region = ChunkedRegion | ViewRegion


def copy_bytes(dst: Region, doff: int, src: Region, soff: int, n: int) -> None:
    """Copy n bytes between regions; aligned whole chunks are shared, not duplicated.

    Repeating the copy that last wrote dst, with neither side changed since, is a no-op:
    the bytes would be the same (a sweep repeats one copy many times). Regions whose
    ``version`` changes with every write, wherever it comes from, are ``memoizable``
    (chunked buffers; shared ones, see :class:`~.ipc.SharedRegion`).
    """
    if n <= 0:
        return
    memo = None
    if dst.memoizable and src.memoizable and dst is not src:
        memo = (src.base, soff, doff, n, src.version)
        last = dst.last_copy  # (memo, dst.version) of the last copy in, compared part by part
        if last is not None and last[1] == dst.version and last[0] == memo:
            return
    move_bytes(dst, doff, src, soff, n)
    if memo is not None:
        dst.version += 1
        dst.last_copy = (memo, dst.version)


def move_bytes(dst: Region, doff: int, src: Region, soff: int, n: int) -> None:
    """Copy n bytes between regions, always (no memo; what :func:`copy_bytes` does when
    its memo misses, before it records the copy)."""
    if (
        not (doff | soff | n) & _IN_CHUNK
        and isinstance(dst, ChunkedRegion)
        and isinstance(src, ChunkedRegion)
    ):
        # whole chunks on both sides (a staged copy's chunks; full-size ones, as the range
        # lies inside both regions): what the loop below does for them, without its
        # per-piece arithmetic
        ks, kd = soff >> _CHUNK_BITS, doff >> _CHUNK_BITS
        schunks, dchunks = src.chunks, dst.chunks
        sget = schunks.get
        m = n >> _CHUNK_BITS
        for j in range(m):
            entry = sget(ks + j, 0)  # the chunk, frozen to bytes to be shared
            if entry.__class__ is bytearray:
                entry = schunks[ks + j] = bytes(entry)
            dchunks[kd + j] = entry
        dst.version += m  # one bump per chunk, as the loop below
        return
    if (
        isinstance(dst, ChunkedRegion)
        and isinstance(src, ChunkedRegion)
        and doff % CHUNK == soff % CHUNK
    ):
        schunks, dchunks, ssize, dsize = src.chunks, dst.chunks, src.size, dst.size
        pos = 0
        while pos < n:
            ks, a = divmod(soff + pos, CHUNK)
            kd = (doff + pos) // CHUNK
            slen = ssize - ks * CHUNK  # src._len(ks) and dst._len(kd), inlined
            if slen > CHUNK:
                slen = CHUNK
            dlen = dsize - kd * CHUNK
            if dlen > CHUNK:
                dlen = CHUNK
            seg = min(n - pos, slen - a, dlen - a)
            if a == 0 and seg == slen == dlen:
                # this and every following full-size chunk of both sides the range covers,
                # in order (a copy within one buffer sees its own earlier chunks, as before)
                m = max(1, min((n - pos) // CHUNK, ssize // CHUNK - ks, dsize // CHUNK - kd))
                sget = schunks.get
                for j in range(m):
                    entry = sget(ks + j, 0)  # the chunk, frozen to bytes to be shared
                    if entry.__class__ is bytearray:
                        entry = bytes(entry)
                        schunks[ks + j] = entry
                    dchunks[kd + j] = entry
                dst.version += m  # one bump per chunk, as chunk by chunk
                pos += m * CHUNK if m > 1 else seg
                continue
            else:
                entry = src.chunks.get(ks, 0)
                if isinstance(entry, int):
                    dst.fill(doff + pos, seg, entry)
                else:
                    memoryview(dst._private(kd))[a : a + seg] = memoryview(entry)[a : a + seg]
            pos += seg
        return
    if _ONE_PIECE and n > 0 and dst is not src and _one_piece(dst, doff, src, soff, n):
        return
    pos = 0
    while pos < n:  # general case, in bounded pieces
        seg = min(CHUNK, n - pos)
        dst.write(doff + pos, src.read(soff + pos, seg))
        pos += seg


#: move_bytes takes :func:`_one_piece`'s shortcut (tests turn it off to compare)
_ONE_PIECE = True


def _one_piece(dst: Region, doff: int, src: Region, soff: int, n: int) -> bool:
    """What the general loop of :func:`move_bytes` does for n > 0 bytes between two
    chunked regions, each side inside one chunk and the destination's not a whole chunk
    (a verification window copied into the check buffer), without the bytes in between:
    ``dst.write``'s version, then its private chunk's, and the bytes in place. False
    (nothing done) for any other copy."""
    if dst.__class__ is not ChunkedRegion or src.__class__ is not ChunkedRegion:
        return False
    ks, kd = soff >> _CHUNK_BITS, doff >> _CHUNK_BITS
    a, b = soff - (ks << _CHUNK_BITS), doff - (kd << _CHUNK_BITS)
    slen = src.size - (ks << _CHUNK_BITS)
    dlen = dst.size - (kd << _CHUNK_BITS)
    if (
        a + n > (CHUNK if slen > CHUNK else slen)
        or b + n > (CHUNK if dlen > CHUNK else dlen)
        or (b == 0 and n == (CHUNK if dlen > CHUNK else dlen))
    ):
        return False
    entry = src.chunks.get(ks, 0)
    dst.version += 1  # what write() counts, then its private chunk
    target = memoryview(dst._private(kd))
    if entry.__class__ is int:
        target[b : b + n] = bytes((entry,)) * n if entry else bytes(n)
    else:
        target[b : b + n] = memoryview(entry)[a : a + n]
    target.release()
    return True


PAGE = 4096
_FLIP_CACHE_MAX = 32


def flip_pages(region: Region, off: int, n: int, cache: dict | None = None) -> None:
    """Invert (XOR 0xFF) byte 0 of every PAGE-byte page of [off, off + n), pages counted
    from off, and the range's last byte: any PAGE consecutive bytes of the range then hold
    a flipped byte. What a ``corrupt`` fault does to the bytes a copy wrote.

    A whole chunk that is shared (``bytes``) or a fill and is flipped a second time (every
    chunk of a buffer made of one repeated block, or the same copy repeated) becomes one
    shared flipped copy, kept in ``cache`` (a dict the caller owns): after that, flipping
    it costs a lookup, not a megabyte of bytes.
    """
    if n <= 0:
        return
    end, last = off + n, off + n - 1
    if not isinstance(region, ChunkedRegion):
        data = bytearray(region.read(off, n))
        for p in {*range(0, n, PAGE), n - 1}:
            data[p] ^= 0xFF
        region.write(off, data)
        return
    chunks = region.chunks
    for k in range(off // CHUNK, last // CHUNK + 1):
        cs = k * CHUNK
        clen = region._len(k)
        a, b = max(off, cs) - cs, min(end, cs + clen) - cs
        first = a + (off - cs - a) % PAGE  # the first page start at or after a
        tail = last - cs if a <= last - cs < b and (last - off) % PAGE else -1
        entry = chunks.get(k, 0)
        if a == 0 and b == clen and cache is not None and entry.__class__ is not bytearray:
            key = (entry if entry.__class__ is int else id(entry), clen, first, tail)
            hit = cache.get(key)
            if hit is not None and hit[0] is entry and hit[1] is not None:
                chunks[k] = hit[1]
                region.version += 1
                continue
            ba = bytearray(region.read(cs, clen))
            for p in range(first, clen, PAGE):
                ba[p] ^= 0xFF
            if tail >= 0:
                ba[tail] ^= 0xFF
            if len(cache) >= _FLIP_CACHE_MAX:
                cache.clear()
            if hit is not None and hit[0] is entry:  # seen before: share one flipped copy
                flipped = bytes(ba)
                cache[key] = (entry, flipped)  # holding entry keeps its id unique
                chunks[k] = flipped
            else:  # first sight: a private chunk, and remember the entry
                cache[key] = (entry, None)
                chunks[k] = ba
            region.version += 1
            continue
        ba = region._private(k)
        for p in range(first, b, PAGE):
            ba[p] ^= 0xFF
        if tail >= 0:
            ba[tail] ^= 0xFF


class AddressSpace:
    """Maps pointers to regions. Device d's memory lives in its own address window."""

    def __init__(self) -> None:
        self._bases: list[int] = []
        self._regions: list[Region] = []
        self._next: dict[tuple[str, int], int] = {}
        #: bumped by every region added or removed (a cached route holds while it stays)
        self.changes = 0

    def next_base(self, kind: str, device: int | None, size: int) -> int:
        """A fresh, 2 MiB-aligned base address for an allocation of size bytes."""
        key = (kind, device if device is not None else -1)
        if key not in self._next:
            if kind == "device":
                self._next[key] = _DEVICE_BASE + int(device or 0) * _DEVICE_STRIDE
            else:
                bases = {"host": _HOST_BASE, "reserved": _RESERVED_BASE}
                self._next[key] = bases.get(kind, _VIEW_BASE)
        base = self._next[key]
        self._next[key] = base + ((max(size, 1) + _ALIGN - 1) // _ALIGN + 1) * _ALIGN
        return base

    def add(self, region: Region) -> Region:
        self.changes += 1
        i = bisect.bisect_left(self._bases, region.base)
        self._bases.insert(i, region.base)
        self._regions.insert(i, region)
        return region

    def remove(self, base: int) -> Region | None:
        self.changes += 1
        i = bisect.bisect_left(self._bases, base)
        if i < len(self._bases) and self._bases[i] == base:
            self._bases.pop(i)
            return self._regions.pop(i)
        return None

    def get(self, base: int) -> Region | None:
        """The region that starts exactly at base."""
        i = bisect.bisect_left(self._bases, base)
        if i < len(self._bases) and self._bases[i] == base:
            return self._regions[i]
        return None

    def find(self, ptr: int, n: int) -> tuple[Region, int] | None:
        """The region holding [ptr, ptr + n) and the offset of ptr in it, or None."""
        i = bisect.bisect_right(self._bases, ptr) - 1
        if i < 0:
            return None
        region = self._regions[i]
        off = ptr - region.base
        if off + max(n, 0) > region.size or off >= max(region.size, 1):
            return None
        return region, off

    def regions(self) -> list[Region]:
        return list(self._regions)
