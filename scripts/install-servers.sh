#!/usr/bin/env bash
# Installs the language servers agentlsp's tests and demo use into a cache
# directory that later runs reuse: $AGENTLSP_CACHE (default ~/.cache/agentlsp).
#   bin/        Go-built servers (gopls)
#   npm/        npm-installed servers (node_modules/.bin)
# Usage: scripts/install-servers.sh [server...]   (default: all)
# Servers: gopls pyright typescript clangd
set -euo pipefail

CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
BIN="$CACHE/bin"
GOPLS_VERSION="v0.23.0"
NPM="$CACHE/npm"
# Versions that work with the node 20 of these machines (DESIGN.md section 6).
NPM_PACKAGES=(pyright@1.1.414 typescript-language-server@5.3.0 typescript@5.9.3)
mkdir -p "$BIN" "$NPM"

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

# npm_install installs the pinned npm packages once into $NPM.
npm_install() {
  local stamp="$NPM/.installed" want="${NPM_PACKAGES[*]}"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$NPM/node_modules/.bin/pyright-langserver" ]; then
    log "npm servers already in $NPM"
    return
  fi
  command -v npm >/dev/null || { log "npm is required for pyright and typescript-language-server"; exit 1; }
  log "installing ${want} into $NPM"
  (cd "$NPM" && [ -f package.json ] || echo '{"private":true}' > "$NPM/package.json")
  npm install --prefix "$NPM" --no-audit --no-fund --loglevel=error "${NPM_PACKAGES[@]}" >&2
  echo "$want" > "$stamp"
}

# install_clangd installs clangd from Debian's packages (needs root).
install_clangd() {
  if command -v clangd >/dev/null; then
    log "clangd already installed: $(command -v clangd)"
    return
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    log "clangd is missing: install it with 'apt-get install clangd'"
    exit 1
  fi
  log "installing clangd with apt-get"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clangd >&2
}

servers=("$@")
[ ${#servers[@]} -eq 0 ] && servers=(gopls pyright typescript clangd)
for s in "${servers[@]}"; do
  case "$s" in
    gopls) install_gopls ;;
    pyright|typescript) npm_install ;;
    clangd) install_clangd ;;
    *) log "unknown server: $s"; exit 2 ;;
  esac
done
