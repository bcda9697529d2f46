#!/usr/bin/env bash
# The unit suite (everything outside tests/integration) RUNS times in a row (default 5) beside
# one busy `yes` per core: the tests must not depend on the machine's speed (issue #40).
# Prints each run's exit status, seconds and load. Usage: bash benchmarks/unit_beside_cpu_hog.sh [RUNS]
set -u
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
hogs=()
for _ in $(seq "$(nproc)"); do yes > /dev/null & hogs+=($!); done
trap 'kill "${hogs[@]}"' EXIT
failed=0
for run in $(seq "${1:-5}"); do
  start=$(date +%s)
  "$python" -m pytest tests --ignore=tests/integration -q -p no:cacheprovider -x > /dev/null 2>&1
  status=$?
  [ "$status" -eq 0 ] || failed=1
  echo "run $run: exit $status, $(( $(date +%s) - start )) s, load $(cut -d' ' -f1 /proc/loadavg)"
done
exit "$failed"
