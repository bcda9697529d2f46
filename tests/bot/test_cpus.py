"""Worker pools are sized by what the process may use (affinity, cgroup quota), not the host."""

from __future__ import annotations

import os

from bot import cpus


def make_cgroup(root, quota: str, nested: str | None = None):
    root.mkdir(exist_ok=True)
    (root / "cpu.max").write_text(quota)
    if nested is not None:
        child = root / "bot"
        child.mkdir()
        (child / "cpu.max").write_text(nested)
    return root


def test_a_quota_caps_the_cpus_the_process_may_use(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setattr(cpus.Path, "read_text", _proc_self_cgroup("0::/\n", cpus.Path.read_text))
    assert cpus.usable_cpus(make_cgroup(tmp_path / "a", "max 100000")) == 8
    assert cpus.usable_cpus(make_cgroup(tmp_path / "b", "150000 100000")) == 2  # 1.5 CPUs: two threads
    assert cpus.usable_cpus(make_cgroup(tmp_path / "c", "50000 100000")) == 1


def test_the_tightest_quota_from_the_process_cgroup_up_binds(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)))
    monkeypatch.setattr(cpus.Path, "read_text", _proc_self_cgroup("0::/bot\n", cpus.Path.read_text))
    root = tmp_path / "root"
    assert cpus.usable_cpus(make_cgroup(root, "300000 100000", nested="max 100000")) == 3


def test_affinity_caps_it_without_a_quota(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    assert cpus.usable_cpus(tmp_path) == 1


def test_the_render_pool_is_no_larger_than_the_cpus(monkeypatch):
    from rendering import _async

    monkeypatch.setattr(cpus, "usable_cpus", lambda: 1)
    assert _async.workers() == 1
    monkeypatch.setattr(cpus, "usable_cpus", lambda: 16)
    assert _async.workers() == _async.MAX_WORKERS


def _proc_self_cgroup(text, read_text):
    def read(path, *args, **kwargs):
        if str(path) == "/proc/self/cgroup":
            return text
        return read_text(path, *args, **kwargs)
    return read
