#!/usr/bin/env bash
# The linters CI runs (.ci/run, pass 1), from the repository root in the test bench's virtualenv:
#   ruff: pyflakes and import order on every Python file (pyproject.toml, [tool.ruff]);
#   tsc:  TypeScript's checker over the `// @ts-check` JavaScript (tsconfig.json), at the version
#         package-lock.json pins, installed by `npm ci` from the npm registry.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m ruff check --no-cache .
echo "ruff: clean"
if [ -f package-lock.json ]; then
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
  npx --no-install tsc -p tsconfig.json
  echo "tsc: clean"
fi
