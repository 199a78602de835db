#!/usr/bin/env bash
# Rebuild site_builder/assets/gamenight/plotly.min.js: the plotly.js core and only the trace
# types the site draws (index.js), bundled and minified by esbuild, at the versions pinned in
# package-lock.json. Needs Node.js and the npm registry; the result is committed, so building
# or testing the site never needs either.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund
version=$(node -p 'require("plotly.js/package.json").version')
npx esbuild index.js --bundle --minify --format=iife --global-name=Plotly --target=es2017 \
  --loader:.css=empty --legal-comments=eof --define:global=window \
  --banner:js="/* plotly.js v${version} (MIT License, Copyright 2012-2026 Plotly, Inc.): core + bar, heatmap, scatterpolar; built by site_builder/plotly/build.sh */" \
  --outfile=../assets/gamenight/plotly.min.js
echo "gzip: $(gzip -9 -c ../assets/gamenight/plotly.min.js | wc -c) bytes"
