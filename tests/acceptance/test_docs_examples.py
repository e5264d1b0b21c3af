"""Every example output of README.md and docs/*.md is what the simulator prints today.

The examples are the ``console`` blocks (commands after ``$``, their stdout below, ``...``
for what is left out), the ``<!-- json keys: COMMAND -->`` paragraphs and the ``toml``
blocks that quote a file; the rules are in ``tools/docs_examples.py``, which ``--write``
rewrites them with. Each distinct command runs once, in-process, in one scratch folder
for the whole module. Beside them: the README names every notebook and links every page,
and every link between the pages arrives.
"""

from __future__ import annotations

import re

import pytest

from tools import docs_examples as de

DOCS = de.documents()
EXAMPLES = [e for path in DOCS for e in de.examples(path)]
CLAIMS = [c for path in DOCS for c in de.json_claims(path)]
QUOTES = [q for path in DOCS for q in de.quotes(path)]


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return de.Runner(tmp_path_factory.mktemp("docs_examples"))


def test_the_docs_hold_examples():
    """The mechanism finds what it checks (a renamed fence would check nothing)."""
    assert len(EXAMPLES) >= 5 and len(CLAIMS) >= 3 and len(QUOTES) >= 2


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.where for e in EXAMPLES])
def test_an_example_prints_what_it_shows(example, runner):
    # The blocks of one file run in order (a block may read what an earlier one wrote):
    # the earlier ones of its file run first, from the cache when they already did.
    for before in EXAMPLES:
        if before is example:
            break
        if before.path == example.path:
            for step in before.steps:
                runner.run(step.command)
    problems = de.check(example, runner)
    assert not problems, "\n".join(problems) + "\n(python tools/docs_examples.py --write)"


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.where for c in CLAIMS])
def test_a_json_shape_is_the_printed_one(claim, runner):
    problems = de.check_json(claim, runner)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("quote", QUOTES, ids=[q.where for q in QUOTES])
def test_a_quoted_file_says_what_the_docs_quote(quote):
    """The [[fault]] examples are the ends of the topology files they name."""
    problems = de.check_quote(quote)
    assert not problems, "\n".join(problems)


def test_the_elisions_match_as_documented():
    assert de.matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert de.matches(["a", "...", "b"], ["a", "b"])
    assert de.matches(["run ... (simulated)"], ["run 2026-x (simulated)"])
    assert not de.matches(["a", "b"], ["a", "c"])
    assert not de.matches(["a"], ["a", "extra"])
    assert de.rewrite(["...", "x 1.0"], ["head", "x 2.0"]) == ["...", "x 2.0"]


def _slug(title: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def test_the_readme_names_every_notebook_and_links_every_page():
    readme = (de.ROOT / "README.md").read_text()
    notebooks = sorted(p.name for p in (de.ROOT / "notebooks").glob("*.ipynb"))
    assert len(notebooks) >= 12
    assert [n for n in notebooks if f"`{n}`" not in readme] == []
    pages = sorted(p.name for p in (de.ROOT / "docs").glob("*.md"))
    assert [p for p in pages if f"(docs/{p}" not in readme] == []


def test_every_link_between_the_pages_arrives():
    """Relative links of README.md and docs/*.md name a file that exists, and an anchor
    one of its headings makes."""
    broken = []
    for path in DOCS:
        text = path.read_text()
        for target in re.findall(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"", text):
            target = "".join(target)
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(f"{path.name}: {target}")
            elif anchor and dest.suffix == ".md":
                heads = [_slug(h) for h in re.findall(r"^#+ (.+)$", dest.read_text(), re.M)]
                if anchor not in heads:
                    broken.append(f"{path.name}: {target}")
    assert broken == []


def test_the_readmes_first_install_names_the_extras_dashboard_and_fleet_need():
    """The first install (``.[notebook]``) lacks Voilà and Dask: the README names the
    extras the commands themselves ask for when missing, and pyproject defines them."""
    from pathlib import Path

    import tomllib

    from ascend_p2p_lab.cli import cmd_dashboard, cmd_fleet

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    install = readme[readme.index("## Install and the first run") :].split("\n## ")[0]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for module, command in ((cmd_dashboard, "dashboard"), (cmd_fleet, "fleet")):
        asked = re.findall(r"ascend-p2p-lab\[(\w+)\]", Path(module.__file__).read_text())
        extra = next(e for e in asked if e != "plot")
        assert extra in extras, (command, extra)
        assert re.search(rf"ascend-p2p-lab {command}`\s+needs\s+`{extra}`", install), command
    assert '".[notebook,app,fleet]"' in install
