"""Who can reach whom: the peer-access probe over every ordered pair of devices.

Example:
    >>> from ascend_p2p_lab.runtime import open_runtime
    >>> with open_runtime("sim", preset="atlas300i-duo") as rt:
    ...     table = probe(rt).samples
    >>> table.loc[(table.src == 0) & (table.dst == 1), "can_access_peer"].item()
    True
"""

from __future__ import annotations

import pandas as pd

from ..run import Run, RunMeta
from ..runtime import Runtime
from .meta import new_run_id, run_metadata

_PROBE_DTYPES = {
    "backend": "string",
    "preset": "string",
    "src": "int64",
    "dst": "int64",
    "src_label": "string",
    "dst_label": "string",
    "link": "string",
    "can_access_peer": "bool",
    "peer_enabled": "bool",
    "peer_status": "Int64",
    "reason": "string",
}


def probe(rt: Runtime) -> Run:
    """One row per ordered pair (src != dst): link class, can_access_peer, whether this
    runtime holds peer access src -> dst, the runtime's own status where pyACL reports
    one, and why a pair cannot reach the other.

    A :class:`~ascend_p2p_lab.run.Run`, as a sweep's: the table in ``samples``, the probe's
    metadata in ``meta``. A KeyboardInterrupt returns the rows so far with
    ``meta.interrupted``; a failing call raises its
    :class:`~ascend_p2p_lab.runtime.AclError` with the rows so far in ``exc.partial_run``
    (and, for one release, ``exc.partial_frame``: the same Run). The probe changes no
    state.
    """
    rows: list[dict[str, object]] = []
    try:
        n = rt.device_count
        labels = device_labels(rt)
        for src in range(n):
            for dst in range(n):
                if src == dst:
                    continue
                link = rt.link_class(src, dst)
                can = rt.can_access_peer(src, dst)
                rows.append(
                    {
                        "backend": rt.backend,
                        "preset": rt.preset,
                        "src": src,
                        "dst": dst,
                        "src_label": labels[src],
                        "dst_label": labels[dst],
                        "link": link,
                        "can_access_peer": can,
                        "peer_enabled": rt.peer_enabled(src, dst),
                        "peer_status": rt.peer_status(src, dst),
                        "reason": None
                        if can
                        else f"aclrtDeviceCanAccessPeer({src}, {dst}) = 0 (link {link})",
                    }
                )
    except KeyboardInterrupt:
        return _probe_frame(rt, rows, interrupted=True)
    except Exception as exc:
        partial = _probe_frame(rt, rows, failed=f"{type(exc).__name__}: {exc}")
        exc.partial_run = partial  # type: ignore[attr-defined]
        exc.partial_frame = partial  # type: ignore[attr-defined]
        raise
    return _probe_frame(rt, rows)


def _probe_frame(rt: Runtime, rows: list[dict[str, object]], **flags: object) -> Run:
    """The probe table with its metadata (a Run of probe rows)."""
    frame = pd.DataFrame(rows, columns=list(_PROBE_DTYPES)).astype(_PROBE_DTYPES)
    try:
        meta = run_metadata(rt, {"kind": "probe"})
    except Exception as exc:  # a failing runtime: keep the rows, say why the rest is missing
        meta = RunMeta(params={"kind": "probe"}, metadata_error=f"{type(exc).__name__}: {exc}")
    return Run(frame, meta.replace(**flags, run_id=new_run_id()))


def device_naming(labels: list[str]) -> str:
    """The one line that explains how devices are named: every matrix, figure, grid and
    option uses pyACL's device ids (0, 1, ...); npu-smi's names for them, said once.

    Example:
        >>> device_naming(["Phy-ID0", "Phy-ID1"])
        'devices are pyACL device ids 0-1 everywhere; npu-smi names them Phy-ID0 .. Phy-ID1'
    """
    n = len(labels)
    text = f"devices are pyACL device ids 0-{n - 1} everywhere"
    if labels and labels != [str(i) for i in range(n)]:
        text += f"; npu-smi names them {labels[0]} .. {labels[-1]}"
    return text


def device_labels(rt: Runtime) -> list[str]:
    """npu-smi style labels (NPU0.. or Phy-ID0..) from the topology, else NPU<i>."""
    topo = rt.topology
    if topo is not None and len(topo.labels) == rt.device_count:
        return list(topo.labels)
    return [f"NPU{i}" for i in range(rt.device_count)]


def access_matrix(table: pd.DataFrame, value: str = "can_access_peer") -> pd.DataFrame:
    """A probe table as an N x N 0/1 matrix (rows = src, columns = dst), 0 on the diagonal."""
    n = int(max(table["src"].max(), table["dst"].max()) + 1) if len(table) else 0
    mat = table.pivot(index="src", columns="dst", values=value).reindex(
        index=range(n), columns=range(n)
    )
    return mat.fillna(False).astype(int)


def link_matrix(table: pd.DataFrame) -> pd.DataFrame:
    """A probe table as an N x N matrix of link classes, 'X' on the diagonal."""
    n = int(max(table["src"].max(), table["dst"].max()) + 1) if len(table) else 0
    mat = (
        table.pivot(index="src", columns="dst", values="link")
        .reindex(index=range(n), columns=range(n))
        .astype(object)
    )
    for i in range(n):
        mat.iat[i, i] = "X"
    return mat
