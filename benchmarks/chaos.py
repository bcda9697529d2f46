"""Chaos runs of the bot (issue #16): ``python -m benchmarks.chaos --seeds 20 [--tables N]``;
with ``--processes 2``, two bots on one PostgreSQL (issue #26, tests/support/chaos_processes.py).

Each seed is one run of tests/support/chaos.py (concurrent tables of every game, random Discord
failures, a full disk, a held database lock, a restart, then a calm phase) and prints the
invariants it violated; the totals follow. Exit status 1 if any seed violated one.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.support.chaos import ChaosConfig, run_seed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20, help="how many seeds to run")
    parser.add_argument("--first", type=int, default=1, help="the first seed")
    parser.add_argument("--tables", type=int, default=5, help="tables per run (games cycle)")
    parser.add_argument("--fault-rate", type=float, default=0.12, help="chance that a Discord call fails")
    parser.add_argument("--ticks", type=int, default=60, help="ticks of the chaos phase")
    parser.add_argument("--calm-ticks", type=int, default=90,
                        help="ticks of the calm phase (20 simulated s each); games still moving get more")
    parser.add_argument("--lock-seconds", type=float, default=6.0,
                        help="real seconds the database lock is held (0: never)")
    parser.add_argument("--lock-every", type=int, default=5, help="hold the lock in every n-th seed only")
    parser.add_argument("--processes", type=int, default=1, choices=(1, 2),
                        help="2: two bots on one PostgreSQL, with stalls, a database restart, killed connections"
                             " and clicks delivered twice (tests/support/chaos_processes.py)")
    parser.add_argument("--verbose", action="store_true", help="print each seed's statistics too")
    args = parser.parse_args(argv)

    totals: Counter = Counter()
    failing: list[int] = []
    started = time.monotonic()
    for index, seed in enumerate(range(args.first, args.first + args.seeds)):
        config = ChaosConfig(seed=seed, tables=args.tables, fault_rate=args.fault_rate, chaos_ticks=args.ticks,
                             db_lock_seconds=args.lock_seconds if index % max(1, args.lock_every) == 0 else 0.0,
                             calm_ticks=args.calm_ticks, processes=args.processes)
        with tempfile.TemporaryDirectory(prefix=f"chieu-chaos-{seed}-") as tmp:
            report = asyncio.run(run_seed(config, Path(tmp)))
        if args.verbose or args.processes > 1:
            print(report.summary())
        else:
            print(f"seed {seed}: {len(report.violations)} violation(s) in {report.seconds:.1f} s")
            for violation in report.violations:
                print(f"  {violation}")
        sys.stdout.flush()
        totals.update(v.invariant for v in report.violations)
        if report.violations:
            failing.append(seed)
    print(f"\n{args.seeds} seeds in {time.monotonic() - started:.0f} s; {len(failing)} with violations"
          + (f" ({', '.join(map(str, failing))})" if failing else ""))
    for invariant, count in sorted(totals.items()):
        print(f"  {invariant}: {count}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
