"""``ascend-p2p-lab presets`` (``cli/cmd_presets.py``): every preset, one per line."""

from __future__ import annotations

from helpers import run_cli


def test_presets_lists_every_preset(capsys) -> None:
    code, out, _ = run_cli(capsys, "presets")
    assert code == 0
    for name in (
        "atlas800-9000",
        "atlas800t-a2",
        "atlas800t-a3",
        "atlas800i-a2-pcie",
        "atlas300i-duo",
        "atlas300i-310",
    ):
        assert name in out


def test_the_table_is_printed_as_before_the_one_printer(capsys) -> None:
    """Issue 41 item 4: through texttable, byte for byte what the hand-aligned lines of
    0ed824f printed (their formula here, as the oracle)."""
    from ascend_p2p_lab.topology import preset_summary

    rows = preset_summary()
    w = max(len(r["name"]) for r in rows)
    old = [f"{'preset':<{w}}  devices  {'SoC':<15} links                 description"]
    for r in rows:
        links = ",".join(r["link_classes"]) or "-"
        old.append(
            f"{r['name']:<{w}}  {r['device_count']:>7}  {r['soc_name']:<15} {links:<21} "
            f"{r['description']}"
        )
    code, out, _ = run_cli(capsys, "presets")
    assert code == 0 and out == "\n".join(old) + "\n"
