"""An installed bot speaks every language and has everything it reads: a wheel built from
exactly the files the Dockerfile copies (what the image installs; a clone has more) carries the
catalogs, the rules texts, the card font and the Noto fonts, and its cogs import (issue #18; the image, #19).

The wheel is built without the network (``--no-index --no-build-isolation``: setuptools and
wheel come from the test extras) and unzipped; a subprocess started outside the repo, with only
the unzipped wheel on ``PYTHONPATH``, loads the ``chieu`` entry point and translates through it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: what a fresh clone does not have: the developer's venv, build leftovers, caches, compiled catalogs
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc",
                                     ".hypothesis", ".pytest_cache", "*.mo", "config.toml", "*.sqlite3*")

PROBE = textwrap.dedent("""
    import json, sys
    from importlib.metadata import distribution
    from pathlib import Path

    here = Path(sys.argv[1]).resolve()
    (entry,) = [e for e in distribution("chieu").entry_points if e.group == "console_scripts" and e.name == "chieu"]
    main = entry.load()  # the code `chieu` runs
    module = sys.modules[main.__module__]
    from bot import i18n

    import importlib
    from bot.app import EXTENSIONS
    from rendering import fonts, render_hand

    cogs = [importlib.import_module(name) for name in EXTENSIONS]
    rules = sorted(p.name for p in (Path(module.__file__).parent / "rules").glob("*.md"))
    hand = render_hand([["2V", "3W", "CC"]], deck="tosom")  # Chắn's cards: the CJK font
    said = {"entry": entry.value,
            "from_wheel": all(here in Path(m.__file__).resolve().parents for m in (module, i18n, fonts, *cogs)),
            "cjk_font": fonts.CJK_FONT_PATH.is_file() and here in fonts.CJK_FONT_PATH.resolve().parents,
            "rules": rules, "hand_bytes": len(hand),
            "vietnamese": fonts.has_vietnamese(),
            "chain_in_wheel": sorted(p.name for p in fonts.CHAIN if here in p.resolve().parents)}
    for lang in ("en", "vi", "es"):
        with i18n.language(lang):
            said[lang] = [i18n._("It is not your turn."),
                          i18n.ngettext("({n} round)", "({n} rounds)", 1).format(n=1),
                          i18n.ngettext("({n} round)", "({n} rounds)", 3).format(n=3),
                          i18n.pgettext("choice", "A new DM")]
    print(json.dumps(said))
""")


def copy_what_the_image_copies(sources: Path) -> None:
    """The Dockerfile's ``COPY`` lines from the build context (not ``--from`` a stage), done into
    ``sources`` (the build stage's WORKDIR): a folder is copied as the target folder, files into
    the target folder (``./``)."""
    copies = re.findall(r"^COPY (?!--)(.+) (\S+)$", (ROOT / "Dockerfile").read_text(), re.M)
    assert copies, "the Dockerfile copies the sources"
    for paths, target in copies:
        for path in paths.split():
            origin = ROOT / path
            if origin.is_dir():
                shutil.copytree(origin, sources / target, ignore=NOT_SOURCES)
            else:
                (sources / target).mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, sources / target / origin.name)


def test_the_installed_bot_speaks_every_language_and_has_its_files(tmp_path):
    sources, wheels, site = tmp_path / "src", tmp_path / "wheels", tmp_path / "site"
    copy_what_the_image_copies(sources)
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", ".", "--no-deps", "--no-index",
                            "--no-build-isolation", "--disable-pip-version-check", "-q", "-w", str(wheels)],
                           cwd=sources, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = wheels.glob("chieu-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(site)
    ran = subprocess.run([sys.executable, "-c", PROBE, str(site)], cwd=elsewhere, env=env,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    said = json.loads(ran.stdout)

    assert said["entry"] == "bot.__main__:main"
    assert said["from_wheel"], "the probe imported the repo's code, not the wheel's"
    assert said["cjk_font"] and said["hand_bytes"] > 1000, "the card font travels with the wheel"
    noto = sorted(p.name for p in (ROOT / "rendering" / "assets" / "noto").glob("*.ttf"))
    assert said["vietnamese"] and len(noto) > 20, "Noto Sans travels with the wheel"
    assert said["chain_in_wheel"] == sorted([*noto, "NotoSansCJK-cards.otf"]), "and every fallback font"
    assert said["rules"] == sorted(p.name for p in (ROOT / "bot" / "rules").glob("*.md")), "every rules text"
    assert said["en"] == ["It is not your turn.", "(1 round)", "(3 rounds)", "A new DM"]
    assert said["vi"] == ["Chưa đến lượt bạn.", "(1 ván)", "(3 ván)", "Một tin nhắn riêng mới"]
    assert said["es"] == ["No es tu turno.", "(1 ronda)", "(3 rondas)", "Un MD nuevo"]
