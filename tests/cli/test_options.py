"""The command line's shared options (``cli/options.py``): ``--min-sample-ms`` refused in its own
words (issue 30 item 18)."""

from __future__ import annotations

import pytest

from ascend_p2p_lab.cli import main


@pytest.mark.parametrize("command", ["sweep", "run"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "1e9", "soon"])
def test_a_bad_min_sample_ms_names_the_option_not_the_sweeps_field(
        command: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--pairs", "0-1"] if command == "sweep" else ["scaling"]
    assert main([command, "--backend", "sim", *extra, "--min-sample-ms", value]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith("ascend-p2p-lab: error: argument --min-sample-ms: ")
    assert "min_sample_us" not in err[0] and f"got '{value}'" in err[0]
    assert "milliseconds above 0 and at most 60000" in err[0]


def test_a_good_min_sample_ms_is_taken_in_milliseconds() -> None:
    from ascend_p2p_lab.cli.options import sample_ms

    assert sample_ms("2.5") == 2.5 and sample_ms("60000") == 60000.0
