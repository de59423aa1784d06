"""The documentation: the configuration reference is what the schema says, every command has its
page, the README's links resolve, and the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_config_reference", DOCS / "gen_config_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_config_reference_is_current():
    gen = _generator()
    assert gen.PAGE.read_text(encoding="utf-8") == gen.render(), (
        "docs/reference/configuration.md is stale: run python docs/gen_config_reference.py"
    )


def test_config_reference_lists_every_key_with_its_default():
    import json

    from silkvision.config.loader import defaults

    text = (DOCS / "reference" / "configuration.md").read_text(encoding="utf-8")

    def keys(d, prefix=""):
        for k, v in d.items():
            yield from keys(v, f"{prefix}{k}.") if isinstance(v, dict) else [(f"{prefix}{k}", v)]

    for key, value in keys(defaults()):
        shown = "`null`" if value is None else f"`{json.dumps(value)}`"
        assert f"| `{key}` | {shown} |" in text, key


def test_every_command_has_a_page():
    from silkvision.cli.main import COMMANDS

    for name in COMMANDS:
        assert (DOCS / "commands" / f"{name.replace('_', '-')}.md").is_file(), name


def test_readme_links_resolve():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        if "://" not in link:
            assert (REPO / link).exists(), link


def test_mkdocs_has_no_nav():
    """Pages added under docs/ by anyone are picked up without editing mkdocs.yml."""
    assert not re.search(r"^nav:", (REPO / "mkdocs.yml").read_text(encoding="utf-8"), re.M)


@pytest.mark.slow
def test_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings_handlers.python")
    p = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    api = (tmp_path / "site" / "reference" / "api" / "index.html").read_text(encoding="utf-8")
    assert "create_subtractor" in api and "Parameters" in api  # rendered from the docstrings
    assert (tmp_path / "site" / "reference" / "configuration" / "index.html").is_file()
