"""The largest classes of the product code by method count, inherited methods included.

A class made of mixins is one object to whoever reads it, so a class counts every method it
has: its own and those of its bases that are defined in the product code (looked up by name;
a base from a library counts for nothing). Run from the repository's root:

    python benchmarks/class_sizes.py [--top 10] [paths ...]

Paths default to the product code: bot, cogs, rendering.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
from dataclasses import dataclass, field

PRODUCT = ("bot", "cogs", "rendering")


@dataclass
class ClassInfo:
    name: str
    path: str
    bases: list[str]
    methods: set[str] = field(default_factory=set)


def classes_in(paths: list[str]) -> dict[str, list[ClassInfo]]:
    """Every class of the files under ``paths``, by name (several classes may share one)."""
    found: dict[str, list[ClassInfo]] = {}
    for root in paths:
        for path in sorted(pathlib.Path(root).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                bases = [base.id if isinstance(base, ast.Name) else base.attr
                         for base in node.bases if isinstance(base, (ast.Name, ast.Attribute))]
                info = ClassInfo(node.name, str(path), bases, {
                    item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))})
                found.setdefault(node.name, []).append(info)
    return found


def all_methods(info: ClassInfo, found: dict[str, list[ClassInfo]], seen: frozenset[str] = frozenset()) -> set[str]:
    """The class's methods and those of its bases found in ``found`` (the first of a name)."""
    methods = set(info.methods)
    for base in info.bases:
        if base in found and base not in seen:
            methods |= all_methods(found[base][0], found, seen | {info.name})
    return methods


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=list(PRODUCT))
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    found = classes_in(args.paths)
    sized = sorted(((len(all_methods(info, found)), len(info.methods), info)
                    for infos in found.values() for info in infos), key=lambda item: (-item[0], item[2].path))
    print(f"{'methods':>7} {'own':>4}  class")
    for total, own, info in sized[:args.top]:
        print(f"{total:>7} {own:>4}  {info.name} ({info.path})")


if __name__ == "__main__":
    main()
