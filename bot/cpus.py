"""How many CPUs this process may use: the CPUs it may run on (``sched_getaffinity``: taskset,
a container's cpuset) and, under a cgroup v2 CPU quota (``cpu.max``: ``docker run --cpus``,
compose's ``cpus``, systemd's CPUQuota), no more than the quota allows — not the host's count,
which a container limited to fewer would overrun with worker threads or processes."""

from __future__ import annotations

import math
import os
from pathlib import Path

CGROUP = Path("/sys/fs/cgroup")


def usable_cpus(cgroup: Path = CGROUP) -> int:
    """At least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not on Linux)
        count = os.cpu_count() or 1
    quota = cgroup_quota(cgroup)
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)


def cgroup_quota(cgroup: Path = CGROUP) -> float | None:
    """The CPUs the process's cgroup v2 quota allows (``cpu.max``: "200000 100000" is 2), None
    when there is no quota or no cgroup v2 to read."""
    try:
        relative = next((line.split(":", 2)[2] for line in Path("/proc/self/cgroup").read_text().splitlines()
                         if line.startswith("0::")), "/")
    except OSError:
        relative = "/"
    folder = cgroup / relative.strip().lstrip("/")
    # the process's own cgroup, then each parent: the tightest quota above it binds
    found: list[float] = []
    while True:
        try:
            limit, period = (folder / "cpu.max").read_text().split()
            if limit != "max":
                found.append(int(limit) / int(period))
        except (OSError, ValueError):
            pass
        if folder == cgroup or folder.parent == folder:
            break
        folder = folder.parent
    return min(found) if found else None
