"""No module outside the tests grows past 500 lines (issue #37): a file that does has more than
one concern, and is split along its seams instead."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 500


def test_no_module_outside_the_tests_is_over_500_lines():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for folder in ("bot", "cogs", "rendering", "benchmarks", "scripts") for path in (ROOT / folder).rglob("*.py")}
    assert sizes, "no module found"
    assert {path: lines for path, lines in sizes.items() if lines > LIMIT} == {}
