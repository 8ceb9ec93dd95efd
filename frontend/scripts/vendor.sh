#!/usr/bin/env bash
# Copy the pinned npm packages the dashboard uses into frontend/static/vendor (no CDN at run time).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
modules="$here/node_modules"
out="$here/static/vendor"
rm -rf "$out"
mkdir -p "$out"
cp "$modules/htmx.org/dist/htmx.min.js" "$out/htmx.min.js"
cp "$modules/@picocss/pico/css/pico.min.css" "$out/pico.min.css"
cp "$modules/cytoscape/dist/cytoscape.min.js" "$out/cytoscape.min.js"
cp "$modules/chart.js/dist/chart.umd.min.js" "$out/chart.umd.min.js"
echo "vendored: $(ls "$out" | tr '\n' ' ')"
