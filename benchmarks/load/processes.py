"""``--processes K``: K processes of the load benchmark, each its own bot in its own simulated
Discord, on one shared PostgreSQL database; their figures merged into one report.

The processes move through three steps together, each one saying on its standard output when
it has reached a step and waiting for a line on its standard input to go on:

- ``ready to measure``: set up (tables dealt); then they all measure the same window;
- ``measured``: figures written; until every process is there, none lets its tables go (each
  still drains its own tables, and a table another process let go would be adopted here, where
  its server does not exist);
- ``detached``: its bot no longer drives anything (its lease keeping stopped); then each lets
  its tables go.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from benchmarks.load.database import database_for
from benchmarks.load.figures import Figures, merge, split_tables
from benchmarks.load.report import report

ROOT = Path(__file__).resolve().parents[2]

READY, MEASURED, DETACHED = "ready to measure", "measured", "detached"

# Each process of a run has a simulated Discord of its own, whose snowflakes come from its
# clock: started this far apart (more than any run lasts), their servers, channels and people
# never share an id in the database they share.
WORLDS_APART_SECONDS = 86400.0


def keep_ids_apart(env, child: int) -> None:
    env.backend.advance_clock(child * WORLDS_APART_SECONDS)


async def step_together(step: str) -> None:
    """One of several processes: say this one has reached ``step``, and wait until every one
    has."""
    print(step, flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


async def run_processes(args) -> None:
    """Start the processes, take them through their steps together, report their figures."""
    with tempfile.TemporaryDirectory() as tmp:
        async with database_for(args.database, Path(tmp)) as database:
            outputs = [Path(tmp) / f"figures-{child}.json" for child in range(args.processes)]
            children = [await start_child(args, database, child, tables, output) for child, (tables, output)
                        in enumerate(zip(split_tables(args.tables, args.processes), outputs))]
            try:
                for step in (READY, MEASURED, DETACHED):
                    if not all(await asyncio.gather(*(relay_until(child, step) for child in children))):
                        raise SystemExit(f"a process stopped before it had {step} (its errors are above)")
                    for child in children:
                        child.stdin.write(b"go\n")
                    await asyncio.gather(*(child.stdin.drain() for child in children))
                finished = await asyncio.gather(*(child.communicate() for child in children))
            finally:
                for child in children:
                    if child.returncode is None:
                        child.kill()
                        await child.wait()
            for stdout, _ in finished:
                sys.stderr.buffer.write(stdout)
            if any(child.returncode for child in children):
                raise SystemExit("a process failed (its errors are above)")
            figures = merge([Figures.from_json(output.read_text()) for output in outputs])
    report(args, figures)


async def start_child(args, database: str, child: int, tables: int, output: Path):
    options = ["--tables", tables, "--humans", args.humans, "--game", args.game, "--think", args.think,
               "--seconds", args.seconds, "--seed", args.seed + child, "--database", database,
               "--child", child, "--raw-out", output]
    if args.ai_delay is not None:
        options += ["--ai-delay", args.ai_delay]
    options += ["--ai", args.ai]
    if args.profile:
        options += ["--profile", f"{args.profile}.{child}"]
    if args.text_only:
        options.append("--text-only")
    if args.metrics:
        options.append("--metrics")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.load", *map(str, options), cwd=ROOT,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)


async def relay_until(child, step: str) -> bool:
    """Whether the process reached ``step`` (else it stopped); what else it printed goes on."""
    while line := await child.stdout.readline():
        if line.decode().strip() == step:
            return True
        sys.stderr.buffer.write(line)
    return False
