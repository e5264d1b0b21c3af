"""ascend_p2p_lab.run.samples: the samples table of a run folder, its list columns and
its types."""

from __future__ import annotations

import pandas as pd
import pytest

from ascend_p2p_lab import open_runtime
from ascend_p2p_lab.measure import sweep
from ascend_p2p_lab.run import RUN_SCHEMA_VERSION
from ascend_p2p_lab.run.samples import (
    LIST_COLUMNS,
    SamplesError,
    check_column_types,
    lists_for_csv,
    lists_loaded,
    read_samples,
)


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {"senders": [(0, 1), None], "receivers": [(2,), None], "bandwidth_GBps": [1.5, 2.0]}
    )


def test_list_columns_go_to_csv_as_json_and_come_back_as_tuples() -> None:
    assert LIST_COLUMNS == ("senders", "receivers")
    csv = lists_for_csv(_frame())
    assert csv["senders"].iloc[0] == "[0, 1]" and pd.isna(csv["senders"].iloc[1])
    back = lists_loaded(csv)
    assert list(back["senders"]) == [(0, 1), None]
    assert list(back["receivers"]) == [(2,), None]
    assert lists_loaded(_frame().assign(senders=[[0, 1], float("nan")]))["senders"].tolist() == [
        (0, 1),
        None,
    ]


def test_a_schema_1_run_gets_its_devices_from_the_group_label() -> None:
    old = pd.DataFrame(
        {"group": ["0,1->2,3", None], "senders": [None, None], "receivers": [None, None]}
    )
    loaded = lists_loaded(old, run_schema=1)
    assert loaded["senders"].tolist() == [(0, 1), None]
    assert loaded["receivers"].tolist() == [(2, 3), None]
    # a newer run's group label is only a label
    assert lists_loaded(old, run_schema=2)["senders"].tolist() == [None, None]


def test_a_numeric_column_of_text_is_named() -> None:
    check_column_types(pd.DataFrame({"bandwidth_GBps": [1.0, None]}))
    with pytest.raises(ValueError, match="column bandwidth_GBps holds text, not numbers"):
        check_column_types(pd.DataFrame({"bandwidth_GBps": ["fast", None]}))


def test_a_csv_only_run_reads_the_link_class_na_as_text(tmp_path) -> None:
    """npu-smi's "NA" (no link reported) is a link class, not a missing value; only an
    empty field is missing; a text column stays text; text in a number column is named."""
    with open_runtime("sim", "atlas800t-a2") as rt:
        run = sweep(rt, pairs="0-1", sizes="4KiB", samples=2, warmup=0, progress=False)
    run.save(tmp_path)
    (tmp_path / "samples.parquet").unlink(missing_ok=True)
    text = pd.read_csv(tmp_path / "samples.csv", keep_default_na=False)
    text.loc[0, "link"] = "NA"
    text["host"] = "0042"  # text stays text: not the number 42
    text.to_csv(tmp_path / "samples.csv", index=False)
    back = read_samples(tmp_path, RUN_SCHEMA_VERSION, len(text))
    assert back["link"].tolist() == ["NA", text.loc[1, "link"]]
    assert back["host"].tolist() == ["0042", "0042"]
    text["bandwidth_GBps"] = "fast"
    text.to_csv(tmp_path / "samples.csv", index=False)
    with pytest.raises(SamplesError, match="column bandwidth_GBps holds text, not numbers"):
        read_samples(tmp_path, RUN_SCHEMA_VERSION, len(text))
