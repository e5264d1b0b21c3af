"""The exporter command's input, checked before it binds: one line, exit 2."""

from __future__ import annotations

import socket

import pytest
from helpers import run_cli

from ascend_p2p_lab.cli import cmd_exporter
from ascend_p2p_lab.cli.parser import build_parser

pytest.importorskip("prometheus_client")


def test_defaults_bind_the_loopback_and_check_the_preflight():
    args = build_parser().parse_args(["exporter"])
    assert (args.host, args.port, args.interval, args.full) == ("127.0.0.1", 9873, 300.0, False)
    assert cmd_exporter._loopback("127.0.0.1") and cmd_exporter._loopback("::1")
    assert not cmd_exporter._loopback("0.0.0.0") and not cmd_exporter._loopback("10.0.0.5")


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--port", "0"], "--port 0: must be 1 to 65535"),
        (["--interval", "0"], "--interval 0: must be above 0 seconds"),
        (["--fraction", "2"], "fraction"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv, words, capsys):
    code, out, err = run_cli(capsys, "exporter", *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err


def test_a_port_in_use_exits_2_naming_it(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        code, out, err = run_cli(capsys, "exporter", "--port", str(port), "--interval", "60")
    assert code == 2 and out == ""
    assert err.strip() == (
        f"ascend-p2p-lab: error: --host 127.0.0.1 --port {port}: Address already in use"
    )
