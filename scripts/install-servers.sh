#!/usr/bin/env bash
# Installs the language servers agentlsp's tests and demo use into a cache
# directory that later runs reuse: $AGENTLSP_CACHE (default ~/.cache/agentlsp).
#   bin/        Go-built servers (gopls), and agentlsp-install (this CLI)
#   npm/        npm-installed servers (node_modules/.bin)
# Usage: scripts/install-servers.sh [server...]   (default: all)
# Servers: gopls pyright typescript clangd rust-analyzer (or any name
# 'agentlsp servers --install' takes).
# The pinned versions live in one place, the install package: this script
# builds the CLI and runs 'agentlsp servers --install'.
set -euo pipefail
cd "$(dirname "$0")/.."

export AGENTLSP_CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
BIN="$AGENTLSP_CACHE/bin"
mkdir -p "$BIN"

servers=("$@")
[ ${#servers[@]} -eq 0 ] && servers=(gopls pyright typescript clangd rust-analyzer)

echo "install-servers: building the agentlsp CLI into $BIN/agentlsp-install" >&2
GOFLAGS=-buildvcs=false go build -o "$BIN/agentlsp-install" ./cmd/agentlsp
"$BIN/agentlsp-install" servers --install "${servers[@]}"

# gopls starts a telemetry helper child unless Go telemetry is off.
go telemetry off >/dev/null 2>&1 || true
