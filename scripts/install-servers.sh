#!/usr/bin/env bash
# Installs the language servers agentlsp's tests and demo use into a cache
# directory that later runs reuse: $AGENTLSP_CACHE (default ~/.cache/agentlsp).
#   bin/        Go-built servers (gopls)
# Usage: scripts/install-servers.sh [server...]   (default: all)
# Servers: gopls
set -euo pipefail

CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
BIN="$CACHE/bin"
GOPLS_VERSION="v0.23.0"
mkdir -p "$BIN"

log() { echo "install-servers: $*" >&2; }

install_gopls() {
  if [ -x "$BIN/gopls" ] && "$BIN/gopls" version 2>/dev/null | grep -q "$GOPLS_VERSION"; then
    log "gopls $GOPLS_VERSION already in $BIN"
  else
    log "building gopls $GOPLS_VERSION into $BIN (about 80 s the first time)"
    (cd "$CACHE" && GOBIN="$BIN" GOFLAGS=-buildvcs=false go install "golang.org/x/tools/gopls@$GOPLS_VERSION")
  fi
  # gopls starts a telemetry helper child unless Go telemetry is off.
  go telemetry off >/dev/null 2>&1 || true
}

servers=("$@")
[ ${#servers[@]} -eq 0 ] && servers=(gopls)
for s in "${servers[@]}"; do
  case "$s" in
    gopls) install_gopls ;;
    *) log "unknown server: $s"; exit 2 ;;
  esac
done
