"""The deployment files agree with the code: the image installs every package the project
ships, and compose.yaml's bot processes run on its PostgreSQL with shard settings the config
accepts, together covering every shard exactly once, with no secret in the repository.
(No Docker engine runs on the test machines: the files are checked, not built.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import yaml

from bot.config import load

ROOT = Path(__file__).resolve().parents[2]


def test_the_image_installs_every_package_the_project_ships():
    dockerfile = (ROOT / "Dockerfile").read_text()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = project["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in (p.rstrip("*") for p in packages):
        assert re.search(rf"^COPY {package} \./{package}$", dockerfile, re.M), package
        assert f"!{package}/" in (ROOT / ".dockerignore").read_text(), package
    # the base is a build argument (scripts/check-image builds on one made from Debian's packages)
    assert re.search(r"^ARG BASE=python:3\.11-slim$", dockerfile, re.M)
    stages = re.findall(r"^FROM (.*)$", dockerfile, re.M)
    assert stages == ["${BASE} AS build", "${BASE}"], "a build stage, then the image"
    image = dockerfile.split("\nFROM ${BASE}\n", 1)[1]
    # the image has the environment built from wheels at the pinned versions, and no pip, no sources
    assert '-c constraints.txt ".[postgres]"' in dockerfile and "COPY --from=build /opt/chieu /opt/chieu" in image
    assert "pip uninstall" in image and "purge" in image and "! python3 -m pip --version" in image
    assert "COPY bot" not in image
    assert 'ENTRYPOINT ["chieu"]' in image and "USER chieu" in image and "VOLUME /data" in image
    assert "WORKDIR /data" in image, "the default database, chieu.sqlite3, is /data/chieu.sqlite3"
    assert re.search(r"^ARG VERSION=(.*)$", image, re.M)[1] == project["project"]["version"]
    assert 'org.opencontainers.image.version="${VERSION}"' in image


def test_a_stop_has_time_to_be_clean_under_docker_compose_and_systemd():
    from configparser import ConfigParser

    from bot.stopping import STOP_SECONDS

    assert re.search(r"^STOPSIGNAL SIGTERM$", (ROOT / "Dockerfile").read_text(), re.M)
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        if name.startswith("bot"):
            assert service["stop_signal"] == "SIGTERM" and service["stop_grace_period"] == "10s"
            assert service["logging"]["options"]["max-size"], "the log is rotated"
            assert isinstance(service["healthcheck"]["test"], str), "a shell command (podman-compose runs it)"
    unit = ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(ROOT / "deploy" / "chieu.service")
    service = unit["Service"]
    assert service["KillSignal"] == "SIGTERM" and float(service["TimeoutStopSec"]) >= STOP_SECONDS + 2
    assert service["RestartPreventExitStatus"] == "2", "a wrong config is not restarted in a loop"
    assert service["ExecStart"].endswith("/chieu")


def test_the_constraints_pin_every_dependency_and_are_used_by_the_tests_and_the_image():
    pinned = {line.split("==")[0].lower() for line in (ROOT / "constraints.txt").read_text().splitlines()
              if "==" in line and not line.startswith("#")}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *(d for extra in project["optional-dependencies"].values() for d in extra)]
    for requirement in wanted:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower().replace("_", "-").replace(".", "-")
        if name != "chieu":
            assert name in pinned, f"{name} is not pinned in constraints.txt"
    assert "-c constraints.txt" in (ROOT / "scripts" / "test").read_text()
    assert "-c constraints.txt" in (ROOT / "Dockerfile").read_text()


def test_the_bot_processes_share_postgresql_and_split_the_shards(monkeypatch):
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bots = {name: service for name, service in compose["services"].items() if name.startswith("bot")}
    assert len(bots) == 2
    images = {(service["build"], service["image"]) for service in bots.values()}
    assert len(images) == 1, f"one image, named, so that compose builds it once: {images}"
    shards: list[int] = []
    counts = set()
    rates: list[float] = []
    for service in bots.values():
        env = service["environment"]
        assert env["CHIEU_DATABASE"].startswith("postgresql://") and "@db:" in env["CHIEU_DATABASE"]
        assert env["DISCORD_TOKEN"].startswith("${")  # from .env, never written here
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        config_file = ROOT / "deploy" / Path(env["CHIEU_CONFIG"]).name
        monkeypatch.setenv("CHIEU_DATABASE", "postgresql://chieu:x@db:5432/chieu")
        config = load(config_file)
        assert config.database.startswith("postgresql://")
        counts.add(config.shard_count)
        shards += config.shard_ids
        rates.append(config.rest_calls_here)
    (count,) = counts
    assert sorted(shards) == list(range(count))
    # Discord's 50 calls/s are the bot's, not each process's: together they spend the bot's share
    assert sum(rates) == load().rest_calls_per_second
    assert "${POSTGRES_PASSWORD" in compose["services"]["db"]["environment"]["POSTGRES_PASSWORD"]


def test_each_bot_process_is_checked_by_its_healthz_and_scraped_by_the_optional_prometheus(monkeypatch):
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bots = {name: service for name, service in compose["services"].items() if name.startswith("bot")}
    monkeypatch.setenv("CHIEU_DATABASE", "postgresql://chieu:x@db:5432/chieu")
    targets = []
    for name, service in bots.items():
        config = load(ROOT / "deploy" / Path(service["environment"]["CHIEU_CONFIG"]).name)
        assert config.metrics_port and config.metrics_host == "0.0.0.0"  # (reached over compose's network)
        test = service["healthcheck"]["test"]
        check = test if isinstance(test, str) else " ".join(test)
        assert f"http://127.0.0.1:{config.metrics_port}/healthz" in check and "curl" not in check
        targets.append(f"{name}:{config.metrics_port}")
    prometheus = compose["services"]["prometheus"]
    assert prometheus["profiles"] == ["metrics"]  # optional: started only when asked for
    assert all(port.startswith("127.0.0.1:") for port in prometheus["ports"])
    scraped = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    (job,) = scraped["scrape_configs"]
    assert sorted(job["static_configs"][0]["targets"]) == sorted(targets)
