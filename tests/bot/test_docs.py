"""The documentation holds together: the README stays a map, every relative link in it and in
docs/ leads somewhere that exists, and the code points only to documents inside the repository
(the rules specs are docs/rules/, not a folder beside the checkout)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README_MAX_LINES = 300
#: the pages the README is the map of
DOC_PAGES = ("operating.md", "playing.md", "design.md", "ai.md", "experiments.md", "rules/notation.md")
#: the folders of code whose docstrings and comments must not point outside the repository
CODE_DIRS = ("bot", "cogs", "rendering", "scripts", "benchmarks")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".json", ".yml", ".yaml", ""}

#: [text](target) outside code spans; images too
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
#: a path climbing out of its folder: ../something
PARENT_PATH = re.compile(r"(?:\.\./)+[\w.\-/]+")


def markdown_files(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def prose_lines(path: Path, *, strip_code: bool = True) -> list[str]:
    """The file's lines outside fenced code blocks (inline code removed unless told)."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line) if strip_code else line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, only letters, digits, spaces, hyphens and
    underscores kept, spaces made hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(path, strip_code=False) if path.suffix == ".md" else []:
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def relative_links(path: Path) -> list[str]:
    return [target for line in prose_lines(path) for target in LINK.findall(line)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target)]  # http:, https:, mailto:


def broken_links(root: Path) -> list[str]:
    broken = []
    for page in markdown_files(root):
        if not page.exists():
            continue
        for target in relative_links(page):
            file_part, _, anchor = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            where = f"{page.relative_to(root)}: {target}"
            if not dest.exists() or root.resolve() not in (dest, *dest.parents):
                broken.append(where + " (no such file in the repository)")
            elif anchor and dest.is_file() and anchor not in anchors(dest):
                broken.append(where + " (no such heading)")
    return broken


def pointers_outside(root: Path) -> list[str]:
    """Lines of code and its texts that name a document outside the repository."""
    found = []
    for folder in CODE_DIRS:
        for path in sorted((root / folder).rglob("*")):
            if not path.is_file() or path.suffix not in TEXT_SUFFIXES or "__pycache__" in path.parts:
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                where = f"{path.relative_to(root)}:{number}: {line.strip()}"
                if "shared/rules" in line or "/work/" in line:
                    found.append(where)
                    continue
                for climb in PARENT_PATH.findall(line):
                    target = (path.parent / climb).resolve()
                    if root.resolve() not in target.parents:
                        found.append(where)
    return found


def test_the_readme_is_a_map_of_at_most_300_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move the detail into docs/"


def test_the_readme_links_every_page_of_docs():
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in relative_links(ROOT / "README.md")}
    missing = [page for page in DOC_PAGES if (ROOT / "docs" / page).resolve() not in linked]
    assert not missing, f"README.md does not link docs/{', docs/'.join(missing)}"


def test_every_relative_link_leads_to_a_file_and_heading_that_exist():
    assert (ROOT / "docs").is_dir()
    broken = broken_links(ROOT)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_code_points_to_no_document_outside_the_repository():
    outside = pointers_outside(ROOT)
    assert not outside, "point into docs/ instead:\n" + "\n".join(outside)


def test_the_rules_specs_cited_by_the_engines_are_in_the_repository():
    cited = set()
    for path in (ROOT / "bot").rglob("*.py"):
        cited.update(re.findall(r"docs/rules/[\w.]+\.md", path.read_text(encoding="utf-8")))
    assert cited, "the engines cite their rules in docs/rules/"
    assert sorted(spec for spec in cited if not (ROOT / spec).is_file()) == []


@pytest.mark.parametrize("heading, anchor", [
    ("Server settings: `/admin settings`", "server-settings-admin-settings"),
    ("Discord's rate limit: one budget", "discords-rate-limit-one-budget"),
    ("2026-11-28 05:02–05:42 — the arena", "2026-11-28-05020542--the-arena"),
    ("Tứ Sắc", "tứ-sắc"),
])
def test_anchors_are_github_s(heading, anchor):
    assert slug(heading) == anchor
