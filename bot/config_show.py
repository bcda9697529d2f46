"""``chieu check-config [PATH]``: load the configuration as the bot would and print it — every
key, its value (secrets masked, a database URL's password hidden) and where it came from —
or every fault, one line each. Exit status 0 when the bot would start with it, 2 when not."""

from __future__ import annotations

import dataclasses
import sys

from . import config as config_module
from .config_rules import ConfigError, check, shown


def check_config(path: str | None) -> int:
    warnings: list[str] = []
    try:
        values, origins, errors = config_module.gather(path, warn=warnings.append)
    except ConfigError as exc:
        print("\n".join(exc.lines), file=sys.stderr)
        return 2
    errors += check(values, origins)
    for line in warnings:
        print(line, file=sys.stderr)
    if errors:
        print("\n".join(errors), file=sys.stderr)
        print(f"{len(errors)} fault{'s' if len(errors) > 1 else ''}: the bot would not start", file=sys.stderr)
        return 2
    config = config_module.Config(**values)
    file = config_module.source_path(path)
    print(f"# the configuration the bot would run with ({file or 'no file: defaults and the environment'})")
    for field in dataclasses.fields(config):
        if field.name == "extra":
            continue
        value = getattr(config, field.name)
        line = f"{field.name} = {shown(field.name, value)}"
        print(f"{line:<50} # {origins.get(field.name, 'default')}")
    return 0
