"""An installed bot speaks every language: a wheel built from a clean copy of the sources (what
``pip install .`` or a container installs) carries the catalogs the bot reads (issue #18).

The wheel is built without the network (``--no-index --no-build-isolation``: setuptools and
wheel come from the test extras) and unzipped; a subprocess started outside the repo, with only
the unzipped wheel on ``PYTHONPATH``, loads the ``chieu`` entry point and translates through it.
"""

from __future__ import annotations

import json
import os
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

    said = {"entry": entry.value,
            "from_wheel": all(here in Path(m.__file__).resolve().parents for m in (module, i18n))}
    for lang in ("en", "vi", "es"):
        with i18n.language(lang):
            said[lang] = [i18n._("It is not your turn."),
                          i18n.ngettext("({n} round)", "({n} rounds)", 1).format(n=1),
                          i18n.ngettext("({n} round)", "({n} rounds)", 3).format(n=3),
                          i18n.pgettext("choice", "A new DM")]
    print(json.dumps(said))
""")


def test_an_installed_wheel_speaks_vietnamese_and_spanish(tmp_path):
    sources, wheels, site = tmp_path / "src", tmp_path / "wheels", tmp_path / "site"
    shutil.copytree(ROOT, sources, ignore=NOT_SOURCES)
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
    assert said["from_wheel"], "the probe imported the repo's bot/, not the wheel's"
    assert said["en"] == ["It is not your turn.", "(1 round)", "(3 rounds)", "A new DM"]
    assert said["vi"] == ["Chưa đến lượt bạn.", "(1 ván)", "(3 ván)", "Một tin nhắn riêng mới"]
    assert said["es"] == ["No es tu turno.", "(1 ronda)", "(3 rondas)", "Un MD nuevo"]
