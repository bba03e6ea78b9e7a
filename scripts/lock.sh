#!/usr/bin/env bash
# Refresh requirements.lock: every package the app, its tests and the Dask extra need, pinned,
# resolved by uv from the lower bounds in pyproject.toml (requirements.txt states the same bounds)
# for every Python the project supports (3.10+; markers pick the rows for each).
#
#   python3 -m pip install uv        # once
#   scripts/lock.sh                  # newest releases the bounds allow, as of today
#   scripts/lock.sh --upgrade-package streamlit   # move one package, keep the rest
#
# Then run the whole suite on the new lock (.ci/run does: first pass) and commit the lock
# with the test run that passed on it. CI's second pass installs the newest releases again
# in a fresh virtualenv, so a release that breaks us shows up there before it reaches the lock.
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml --all-extras --universal --python-version 3.10 \
  --no-emit-package nbcore --custom-compile-command "scripts/lock.sh" \
  --output-file requirements.lock "$@"
