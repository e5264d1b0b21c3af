"""Tests as data: transfers in the compact form, test files, the run and patterns
commands, and what the model says a set of simultaneous copies measures."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import BAD_FILES, GOOD

from ascend_p2p_lab.cli import main
from ascend_p2p_lab.patterns.builtin import AS_FILES, expand
from ascend_p2p_lab.patterns.model import parse_transfer
from ascend_p2p_lab.patterns.testfile import TestFileError, read_tests, read_tests_text
from ascend_p2p_lab.runtime import open_runtime


def test_a_file_reads_into_tests():
    (t,) = read_tests_text(GOOD, 8)
    assert t.name == "three" and t.sizes == (64 << 20, 256 << 20)
    assert [str(x) for x in t.transfers] == ["0->1", "2->3 by 2", "host->4"]


def test_a_file_is_checked_before_the_runtime_opens(tmp_path, monkeypatch):
    """Syntax and schema errors come before open_runtime; device numbers after."""
    path = tmp_path / "bad.toml"
    path.write_text(BAD_FILES["size 0"][0])
    opened = []
    import ascend_p2p_lab.cli.session as session  # imported before the patch: it keeps
    import ascend_p2p_lab.runtime as runtime  # its open_runtime (was: the lambda, for good)

    for module in (runtime, session):
        monkeypatch.setattr(module, "open_runtime", lambda *a, **k: opened.append(1))
    assert main(["run", str(path), "--preset", "atlas800t-a2"]) == 2
    assert not opened
    with pytest.raises(TestFileError, match=r"none\.toml: no such file"):
        read_tests(tmp_path / "none.toml", 8)


def test_example_files_read():
    for path in sorted(Path("examples/tests").glob("*.toml")):
        assert read_tests(path, 8), path


def test_built_in_tests_print_as_files_that_read_back(capsys):
    """patterns NAME prints a test file for the server; it reads back as the same tests."""
    with open_runtime("sim", "atlas800t-a3") as rt:
        devices = [0, 1, 2, 3, 4, 5]
        for name in AS_FILES:
            tests = expand(rt, name, devices)
            from ascend_p2p_lab.patterns.testfile import to_toml

            back = read_tests_text(to_toml(tests, [1 << 20]), rt.device_count)
            assert [(t.name, t.transfers) for t in back] == [
                (t.name, t.transfers) for t in tests
            ], name
            assert all(t.sizes == (1 << 20,) for t in back)
    assert main(["patterns", "ring", "--preset", "atlas800t-a2", "--devices", "0-2"]) == 0
    text = capsys.readouterr().out
    assert read_tests_text(text, 8)[0].transfers == expand_ring_0_2()


def expand_ring_0_2():
    return tuple(parse_transfer(t, 8) for t in ("0->1", "1->2", "2->0"))


def test_an_error_of_the_second_test_names_its_own_line_and_field():
    text = (
        GOOD
        + '\n[[test]]\nname = "two"\nsizes = ["4KiB"]\ntransfers = [\n  "0->1",\n  "1->8",\n]\n'
    )
    with pytest.raises(TestFileError) as err:
        read_tests_text(text, 8, "t.toml")
    assert str(err.value) == (
        "t.toml:13: field 'test[1].transfers[1]': transfer '1->8': unknown device 8 "
        "(the server has devices 0..7)"
    )
    with pytest.raises(TestFileError, match=r"^t\.toml:9: field 'test\[1\]\.name': .* twice"):
        read_tests_text(text.replace('"two"', '"three"').replace("1->8", "1->2"), 8, "t.toml")
