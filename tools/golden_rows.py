"""The golden rows: every built-in pattern on every preset, one seed, saved as a fixture.

``python tools/golden_rows.py`` rewrites ``tests/data/golden_rows/rows.csv``;
``tests/acceptance/test_golden_rows.py`` reruns :func:`golden_rows` and compares. The
fixture pins the numbers of the measurement path: a refactoring of how patterns are
declared, planned and turned into rows must leave every number where it was. It uses
only the public API (``open_runtime`` and ``measure.sweep``) so that the same script
runs before and after such a change; columns that moved are mapped back here
(:func:`_ends`).

Regenerate it only when the numbers are meant to move (a change of the simulator's model
or of its jitter stream), and say so in the commit.

Example:
    >>> frame = golden_rows(presets=("atlas800t-a2",), patterns=("local",))
    >>> sorted(set(frame["pattern"]))
    ['local']
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ascend_p2p_lab.measure import sweep  # noqa: E402
from ascend_p2p_lab.runtime import open_runtime  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "golden_rows" / "rows.csv"
PRESETS = (
    "atlas300i-310",
    "atlas300i-duo",
    "atlas800-9000",
    "atlas800i-a2-pcie",
    "atlas800t-a2",
    "atlas800t-a3",
)
PATTERNS = ("pair", "latency", "local", "one_to_all", "all_to_one", "h2d", "d2h", "group", "card")
SEED = 7
SIZES = "4KiB,1MiB,64MiB"
#: Four devices: two cards of the A3 (0,1 and 2,3), enough for every pattern, and small.
DEVICES = "0-3"
#: Asymmetric pairs, so that a swapped source and destination cannot pass.
PAIRS = [(0, 1), (0, 3), (2, 1)]
GROUPS = "0:2,3;1,2:3"
OPTIONS = {
    "samples": 2,
    "warmup": 1,
    "min_sample_us": 50.0,
    "max_copies": 20,
    "direction": "both",
    "peer": "both",
}
#: Runs besides the defaults: pushes instead of pulls, and the host clock.
VARIANTS = (
    ("atlas800t-a2", "initiator=src"),
    ("atlas800t-a3", "initiator=src"),
    ("atlas800t-a2", "timing=host"),
)
#: The columns the fixture keeps: what identifies a row and every number it carries.
KEYS = [
    "preset",
    "variant",
    "pattern",
    "direction",
    "peer",
    "path",
    "initiator",
    "src",
    "dst",
    "ends",
    "link",
    "size_bytes",
    "sample",
]
VALUES = [
    "copies",
    "elapsed_us",
    "bandwidth_GBps",
    "bidir_total_GBps",
    "latency_us",
    "nominal_GBps",
    "host_bound",
    "verified",
    "error_kind",
    "error_code",
    "error_call",
]
COLUMNS = KEYS + VALUES


def _ends(frame: pd.DataFrame) -> pd.Series:
    """Who copies, as one text: ``senders->receivers`` of an aggregate row, else empty.

    Before tests-as-data it is the ``group`` column; after, the ``senders`` and
    ``receivers`` list columns (formatted here, never parsed).
    """
    if "senders" in frame.columns:

        def fmt(row: pd.Series) -> str:
            s, r = row["senders"], row["receivers"]
            if s is None or r is None or (not len(s) and not len(r)):
                return ""
            return f"{','.join(map(str, s))}->{','.join(map(str, r))}"

        return frame.apply(fmt, axis=1) if len(frame) else pd.Series([], dtype=object)
    return frame["group"].astype(object).where(frame["group"].notna(), "")


def golden_rows(
    presets: Sequence[str] = PRESETS, patterns: Sequence[str] = PATTERNS
) -> pd.DataFrame:
    """The fixture's rows: each pattern on each preset, in the sweep's own order."""
    frames = []
    runs = [(p, "") for p in presets] + [v for v in VARIANTS if v[0] in presets]
    for preset, variant in runs:
        with open_runtime("sim", preset, seed=SEED) as rt:
            pats = list(patterns)
            kwargs = dict(OPTIONS)
            if variant:
                name, value = variant.split("=")
                kwargs[name] = value
            if "group" in pats:
                kwargs["groups"] = GROUPS
            pair_like = {"pair", "latency"} & set(pats)
            rows = sweep(
                rt,
                pairs=PAIRS if pair_like else None,
                sizes=SIZES,
                devices=DEVICES,
                patterns=pats,
                progress=False,
                **kwargs,
            ).samples
        run = rows.assign(ends=_ends(rows), variant=variant)
        frames.append(run[COLUMNS].reset_index(drop=True))  # new columns kept out
    frame = pd.concat(frames, ignore_index=True)
    return normalize(frame)


def normalize(frame: pd.DataFrame) -> pd.DataFrame:
    """Typed columns, so that a frame made now and one read from the CSV compare cell by
    cell (nullable integers and booleans, text with missing as NA)."""
    out = frame[COLUMNS].copy()
    for col in ("src", "dst", "copies", "sample", "error_code", "size_bytes"):
        out[col] = out[col].astype("Int64")
    for col in ("host_bound", "verified"):
        out[col] = out[col].astype("boolean")
    for col in ("elapsed_us", "bandwidth_GBps", "bidir_total_GBps", "latency_us", "nominal_GBps"):
        out[col] = out[col].astype("float64")
    for col in (
        "preset",
        "variant",
        "pattern",
        "direction",
        "peer",
        "path",
        "initiator",
        "ends",
        "link",
        "error_kind",
        "error_call",
    ):
        out[col] = out[col].astype("string").replace("", pd.NA)
    return out.reset_index(drop=True)


def read_fixture(path: Path = FIXTURE) -> pd.DataFrame:
    """The committed fixture, normalized as :func:`golden_rows` is."""
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return normalize(frame)


def main() -> int:
    frame = golden_rows()
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(FIXTURE, index=False)
    print(
        f"{len(frame)} rows -> {FIXTURE.relative_to(ROOT)} ({FIXTURE.stat().st_size // 1024} KiB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
