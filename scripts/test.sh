#!/usr/bin/env bash
# The test command: installs the real language servers the tests need
# (cached in $AGENTLSP_CACHE, default ~/.cache/agentlsp) and runs every test
# with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTLSP_CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
bash scripts/install-servers.sh
go vet ./...
go test -race -count=1 -timeout 20m ./...
# Each fuzz target runs briefly on top of its seed corpus (testdata/fuzz).
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-5s}" "$1"; }
fuzz ./transport FuzzFrameStream
fuzz ./textpos FuzzRoundTrip
fuzz ./textpos FuzzLine
fuzz ./config FuzzParse
fuzz ./paths FuzzURIPath
fuzz ./textpos FuzzChange
fuzz ./mcp FuzzToolArgs
# Benchmarks run once each so they cannot rot; timings are not checked here.
go test -run '^$' -bench . -benchtime 1x ./bench/
