"""Running renders off the event loop, on a small shared thread pool."""

from __future__ import annotations

import asyncio
import functools
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

T = TypeVar("T")

#: Rendering is CPU-bound (PNG encoding, pastes); more threads than the CPUs this process may
#: use (its affinity and cgroup quota, not the host's count) would only queue.
MAX_WORKERS = 2


def workers() -> int:
    from bot.cpus import usable_cpus

    return min(MAX_WORKERS, usable_cpus())

_executor: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def executor() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=workers(),
                                           thread_name_prefix="chieu-render")
        return _executor


async def run(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(executor(), functools.partial(func, *args, **kwargs))
