"""The ascend-p2p-lab command line, run in-process through main(argv).

compare: run-vs-run bandwidth ratios, the points below a threshold, the verdict.

The degraded run halves one direction only (0 -> 1; 1 -> 0 stays clean), so a
comparison, a terminal matrix or a heatmap that swaps source and destination cannot pass."""

from __future__ import annotations

import json

from ascend_p2p_lab.cli import build_parser, main
from ascend_p2p_lab.comparison import (
    DEFAULT_THRESHOLD,
)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_report_of_an_interrupted_run_is_not_itself_interrupted(
    capsys, tmp_path, monkeypatch
) -> None:
    """An interrupted run, reported: exit 1 (an incomplete run), never 130; no "saved to"
    (report saves no run); "1 figure", not "1 figures"; a --format help that reads."""
    out_dir = tmp_path / "run"
    assert (
        run_cli(
            capsys,
            "sweep",
            "--backend",
            "sim",
            "--pairs",
            "0-1",
            "--sizes",
            "4KiB",
            "--samples",
            "1",
            "--no-progress",
            "--out",
            str(out_dir),
        )[0]
        == 0
    )
    meta = json.loads((out_dir / "run.json").read_text())
    (out_dir / "run.json").write_text(json.dumps({**meta, "interrupted": True}))
    import ascend_p2p_lab.plots as plots

    def one_figure(run, out, table=None, **_):
        (out / "one.png").write_bytes(b"png")
        return [out / "one.png"]

    monkeypatch.setattr(plots, "report", one_figure)
    code, out, _ = run_cli(capsys, "report", str(out_dir))
    assert code == 1
    assert "interrupted: the rows measured so far are kept" in out
    assert "saved to" not in out and f"read from {out_dir}" in out
    assert "and 1 figure:" in out and "1 figures" not in out
    code, out, _ = run_cli(capsys, "report", str(out_dir), "--format", "json")
    data = json.loads(out)
    assert code == 1 == data["exit_status"] and data["saved_to"] is None
    assert data["read_from"] == str(out_dir)
    from ascend_p2p_lab.cli import build_parser

    report = build_parser()._subparsers._group_actions[0].choices["report"]
    text = next(a.help for a in report._actions if "--format" in a.option_strings)
    assert text.startswith("table (default): the summary and every N x N matrix; json: ")
    assert text.endswith("; the figures are written either way") and "(json" not in text


def test_parser_default_is_the_library_default() -> None:
    args = build_parser().parse_args(["compare", "a", "b"])
    assert args.threshold == DEFAULT_THRESHOLD and args.format == "table"
    assert args.against_preset is None and args.out is None
