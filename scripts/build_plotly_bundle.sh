#!/usr/bin/env bash
# Build dashboard/static/plotly-nbem.min.js.gz: plotly.js with only the traces the lesson's player
# draws (scatter, which is always in plotly's core, bar and heatmap), following plotly.js's own
# CUSTOM_BUNDLE.md (core + Plotly.register of the traces, bundled by esbuild as an IIFE that sets
# window.Plotly). Needs node and npm (the npm registry); writes nothing outside the repository but a
# temporary directory. Not run by CI: the built file is committed, with its licence beside it.
#
#   scripts/build_plotly_bundle.sh            # plotly.js 4.1.1, the version Python's plotly 7.1 targets
#   PLOTLY_JS=4.1.1 scripts/build_plotly_bundle.sh
#
# Why: Chromium evaluates this 1.2 MB bundle in about a third of the time of npm's
# plotly.js-cartesian-dist-min (1.5 MB: 12 trace types and maplibre's CSS injected at load) and
# a seventh of Streamlit's 4.7 MB chunk; that evaluation is on the lesson's cold-load path
# (README, "Lesson player").
set -euo pipefail
PLOTLY_JS="${PLOTLY_JS:-4.1.1}"
ESBUILD="${ESBUILD:-0.25.12}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/dashboard/static/plotly-nbem.min.js.gz"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
npm init -y >/dev/null
npm install --ignore-scripts --no-audit --no-fund "plotly.js@$PLOTLY_JS" "esbuild@$ESBUILD" >/dev/null
cat > entry.js <<'EOF'
'use strict';
var Plotly = require('plotly.js/lib/core');   // scatter and the cartesian axes
Plotly.register([
    require('plotly.js/lib/bar'),
    require('plotly.js/lib/heatmap'),
]);
module.exports = Plotly;
EOF
# plotly's registry imports maplibre's stylesheet (map subplots, not drawn here): esbuild writes it
# to a separate .css file, which is dropped. Legal comments of the bundled packages are kept.
npx esbuild entry.js --bundle --minify --format=iife --global-name=Plotly \
  --define:global=window --define:define.amd=false --target=es2016 --legal-comments=eof \
  --banner:js="/* plotly.js v$PLOTLY_JS (traces: scatter, bar, heatmap), built by scripts/build_plotly_bundle.sh with esbuild $ESBUILD; plotly.js is MIT-licensed, Copyright Plotly, Inc. (dashboard/static/plotly-LICENSE.txt) */" \
  --footer:js="window.Plotly = Plotly;" \
  --outfile=plotly-nbem.min.js --log-level=warning
gzip -9 -n -c plotly-nbem.min.js > "$OUT"
echo "wrote $OUT ($(wc -c < plotly-nbem.min.js) bytes, $(wc -c < "$OUT") gzipped)"
