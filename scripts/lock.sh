#!/usr/bin/env bash
# Refresh the two locks, resolved by uv from the lower bounds in pyproject.toml for every Python the project
# supports (3.10+; markers pick the rows for each):
#   requirements-test.lock  the test bench: the app, its tests, the browser tier's tools, PostgreSQL, Dask and
#                           the notebook widget (every extra): what CI and developers install;
#   requirements.lock       the app alone (the README's run command): nbcore's numpy, scipy and scikit-learn
#                           and the dashboard extra (streamlit, pandas, plotly, segno, httptools) with what they
#                           need, at the very versions of the test lock (it is resolved under it as a
#                           constraint), so the app runs on what the tests ran on.
#
#   python3 -m pip install uv        # once
#   scripts/lock.sh                  # newest releases the bounds allow, as of today
#   scripts/lock.sh --upgrade-package streamlit   # move one package, keep the rest
#
# uv keeps the versions already in a lock unless told to move them. Then run CI on the new locks (.ci/run:
# the app's lock alone, then both tiers on the test lock) and commit them with the run that passed. CI's last
# pass installs the newest releases again in a fresh virtualenv, so a release that breaks us shows up there
# before it reaches the locks.
set -euo pipefail
cd "$(dirname "$0")/.."
uv pip compile pyproject.toml --all-extras --universal --python-version 3.10 \
  --no-emit-package nbcore --custom-compile-command "scripts/lock.sh" \
  --output-file requirements-test.lock "$@"
uv pip compile pyproject.toml --extra dashboard --universal --python-version 3.10 \
  --no-emit-package nbcore --custom-compile-command "scripts/lock.sh" \
  --constraint requirements-test.lock --output-file requirements.lock "$@"
