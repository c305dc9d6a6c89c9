#!/usr/bin/env bash
# The test command: installs the real language servers the tests need
# (cached in $AGENTLSP_CACHE, default ~/.cache/agentlsp) and runs every test
# with the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTLSP_CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
bash scripts/install-servers.sh
go vet ./...
# staticcheck, pinned: unused code and the mistakes vet does not look for.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# Every Go file as gofmt writes it (a file committed unformatted went
# unnoticed once).
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "test.sh: not gofmt'd (run gofmt -w on them):" >&2
  echo "$unformatted" >&2
  exit 1
fi
# The CLI builds everywhere Go runs: linux, darwin and windows on amd64 and
# arm64, without cgo.
crossdir="$(mktemp -d)"
trap 'rm -rf "$crossdir"' EXIT
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    echo "test.sh: building cmd/agentlsp for $os/$arch" >&2
    GOOS=$os GOARCH=$arch CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -o "$crossdir/agentlsp-$os-$arch" ./cmd/agentlsp
  done
done
# The longest packages first, longest first (package times of a full run
# on a loaded 2-core machine, 2026-12-07): go test starts the packages in
# the order given, two at a time on 2 cores, and in alphabetical order
# test/fresh (a third of the tests' time) started late and ran alone for
# minutes at the end. A package not named here still runs, from ./...
slowest=(./test/fresh ./test/e2e ./cmd/agentlsp ./bench/cmd/mcpbench ./actors/server
  ./bench/cmd/mcpload ./mcp ./test/reliability . ./actors/diagnostics ./actors/router
  ./daemon ./bench/cmd/loadharness ./cmd/demo ./actors/watcher ./dedup)
go test -race -count=1 -timeout 20m "${slowest[@]}" ./...
# Each fuzz target runs briefly on top of its seed corpus (testdata/fuzz),
# for a count of executions (about 5 s each on a quiet 2-core machine) rather
# than a duration: a duration-based -fuzztime races the fuzz coordinator's own
# deadline on go1.26 and fails with a bare "context deadline exceeded" and no
# crasher when the machine is loaded (golang/go#75804, fixed in go1.27).
# FUZZTIME overrides every count (for example FUZZTIME=1000x for a quick run).
fuzz() { go test -run '^$' -fuzz "^$2\$" -fuzztime "${FUZZTIME:-$3}" "$1"; }
fuzz ./transport FuzzFrameStream 15000x
fuzz ./textpos FuzzRoundTrip 80000x
fuzz ./textpos FuzzLine 40000x
fuzz ./config FuzzParse 50000x
fuzz ./paths FuzzURIPath 20000x
fuzz ./textpos FuzzChange 120000x
fuzz ./mcp FuzzToolArgs 6000x
fuzz ./mcp FuzzEnvelope 20000x
# Benchmarks run once each so they cannot rot; timings are not checked here.
go test -run '^$' -bench . -benchtime 1x ./bench/
