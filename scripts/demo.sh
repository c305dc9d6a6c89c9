#!/usr/bin/env bash
# The main job: installs gopls and pyright if needed and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
export AGENTLSP_CACHE="${AGENTLSP_CACHE:-$HOME/.cache/agentlsp}"
bash scripts/install-servers.sh gopls pyright
go run ./cmd/demo "$@"
