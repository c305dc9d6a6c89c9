#!/usr/bin/env python3
"""Checkout soak: agentlsp's `diagnostics` MCP tool against the server's own
command line on a real project whose files change behind the agent's back,
as a `git checkout` changes them: many files at once, none of them named.

DIR must be a git repository with the branches given (--branches, default
broken,master), which differ in files the named ones use. Each round checks
out the next branch, calls the tool at once for FILE... (without naming what
changed), then runs the oracle with the disk unchanged (`gopls check
-severity=error FILE...`, `pyright --outputjson FILE...`, `tsc --noEmit
-p .`, `clangd --check=FILE` (by line only), `rust-analyzer diagnostics
.`, or that and `cargo check` for cargo) and compares
the errors (line, column) of every named file the tool marked fresh. It
prints a line per round, every disagreement, and at the end "fresh N
false M". Bounded by --rounds; not part of the test run.

usage: checkout-soak.py --oracle gopls|pyright|tsc|clangd|rust-analyzer|cargo DIR FILE... [--rounds N] [--branches A,B]

AGENTLSP_BIN names the agentlsp binary (go build -o /tmp/agentlsp
./cmd/agentlsp), AGENTLSP_LOG_LEVEL its log level (DIR.agentlsp.stderr); gopls, pyright and tsc are those `bash scripts/install-servers.sh`
installs in ~/.cache/agentlsp. docs/RELIABILITY.md ("Real projects against
their own command lines") has the set-ups measured.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

CACHE = os.path.expanduser(os.environ.get("AGENTLSP_CACHE", "~/.cache/agentlsp"))
AGENTLSP = os.environ.get("AGENTLSP_BIN", "agentlsp")
GOPLS_LINE = re.compile(r"^(.+?):(\d+):(\d+)(?:-\d+)?: (.*)$")
CLANGD_LINE = re.compile(r"^E\[[^]]*\] \[[^]]*\] Line (\d+): ")
TSC_LINE = re.compile(r"^(.+?)\((\d+),(\d+)\): error TS\d+: ")
CARGO_TARGET = "target/agentlsp-soak"  # the oracle's own, apart from rust-analyzer's
RA_LINE = re.compile(r"file (\S+): Error \S+ from LineCol \{ line: (\d+), col: (\d+) \}")


def oracle(kind, ws, files):
    """The errors the server's command line reports, by file: {(line, col)}."""
    res = {f: set() for f in files}
    if kind == "gopls":
        run = subprocess.run([os.path.join(CACHE, "bin", "gopls"), "check", "-severity=error"] + files,
                             cwd=ws, capture_output=True, text=True, timeout=600)
        if run.returncode != 0:  # it exits 0 with errors found; else it checked nothing (a file it cannot read)
            raise RuntimeError(f"gopls check failed (exit {run.returncode}): {run.stderr.strip()}")
        out = run.stdout
        for line in out.splitlines():
            m = GOPLS_LINE.match(line)
            if m:
                res.setdefault(os.path.relpath(m.group(1), ws), set()).add((int(m.group(2)), int(m.group(3))))
        return res
    if kind == "clangd":
        # clangd's own check of each file; it gives lines, not columns.
        for f in files:
            out = subprocess.run(["clangd", "--check=" + f], cwd=ws, capture_output=True, text=True,
                                 timeout=600).stderr
            for line in out.splitlines():
                m = CLANGD_LINE.match(line)
                if m:
                    res[f].add((int(m.group(1)), 0))
        return res
    if kind == "rust-analyzer":
        # rust-analyzer's own scan of the crate (0-based lines and columns).
        out = subprocess.run(["rust-analyzer", "diagnostics", "."], cwd=ws, capture_output=True, text=True,
                             timeout=600).stdout
        for m in RA_LINE.finditer(out):
            f = os.path.relpath(m.group(1), ws)
            if f in res:
                res[f].add((int(m.group(2)) + 1, int(m.group(3)) + 1))
        return res
    if kind == "cargo":
        # rust-analyzer's own scan, and cargo check's errors (the borrow
        # checker's among them), at their primary spans.
        res = oracle("rust-analyzer", ws, files)
        out = subprocess.run(["cargo", "check", "--quiet", "--message-format=json", "--target-dir", CARGO_TARGET],
                             cwd=ws, capture_output=True, text=True, timeout=600).stdout
        for line in out.splitlines():
            m = json.loads(line)
            msg = m.get("message") or {}
            if m.get("reason") != "compiler-message" or msg.get("level") != "error":
                continue
            for sp in msg.get("spans", []):
                if sp.get("is_primary") and sp["file_name"] in res:
                    res[sp["file_name"]].add((sp["line_start"], sp["column_start"]))
        return res
    if kind == "tsc":
        # The project's whole program, as tsserver sees it (tsc --noEmit -p .).
        out = subprocess.run([os.path.join(CACHE, "npm", "node_modules", ".bin", "tsc"), "--noEmit", "--pretty", "false",
                              "-p", "."], cwd=ws, capture_output=True, text=True, timeout=600).stdout
        for line in out.splitlines():
            m = TSC_LINE.match(line)
            if m and m.group(1) in res:
                res[m.group(1)].add((int(m.group(2)), int(m.group(3))))
        return res
    out = subprocess.run([os.path.join(CACHE, "npm", "node_modules", ".bin", "pyright"), "--outputjson"] + files,
                         cwd=ws, capture_output=True, text=True, timeout=600).stdout
    for d in json.loads(out)["generalDiagnostics"]:
        if d["severity"] == "error":
            start = d["range"]["start"]
            res.setdefault(os.path.relpath(d["file"], ws), set()).add((start["line"] + 1, start["character"] + 1))
    return res


class Client:
    """A minimal MCP client of `agentlsp mcp` over stdio."""

    def __init__(self, ws):
        level = os.environ.get("AGENTLSP_LOG_LEVEL", "warn")
        self.proc = subprocess.Popen([AGENTLSP, "mcp", "--workspace", ws, "--log-level", level], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=open(ws.rstrip("/") + ".agentlsp.stderr", "w"),
                                     text=True)
        self.next = 0
        self.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "checkout-soak", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def call(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("agentlsp mcp exited")
            msg = json.loads(line)
            if msg.get("id") == self.next:
                return msg

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oracle", choices=["gopls", "pyright", "tsc", "clangd", "rust-analyzer", "cargo"], required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--branches", default="broken,master")
    ap.add_argument("dir")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    branches = a.branches.split(",")
    c = Client(a.dir)
    fresh = false = 0
    try:
        for r in range(a.rounds):
            branch = branches[r % len(branches)]
            subprocess.run(["git", "checkout", "-q", branch], cwd=a.dir, check=True)
            start = time.monotonic()
            res = c.call("tools/call", {"name": "diagnostics", "arguments": {"files": a.files}})
            took = time.monotonic() - start
            want = oracle(a.oracle, a.dir, a.files)
            for f in res["result"].get("structuredContent", {}).get("files", []):
                if f.get("other"):
                    continue
                if f["status"] != "fresh":
                    print(f"round {r}: {f['path']} {f['status']}: {f.get('detail')}")
                    continue
                fresh += 1
                got = {(d["line"], 0 if a.oracle == "clangd" else d["column"]) for d in f.get("diagnostics", [])
                       if d.get("severity") == "error"}
                if got != want.get(f["path"], set()):
                    false += 1
                    print(f"round {r} {branch}: {f['path']} fresh with {sorted(got)}, the oracle says "
                          f"{sorted(want.get(f['path'], set()))}")
            print(f"round {r} {branch}: answered in {took:.2f}s; the oracle has "
                  f"{sum(len(v) for v in want.values())} errors in the named files", flush=True)
    finally:
        c.close()
    print(f"fresh {fresh} false {false}")
    return 1 if false else 0


if __name__ == "__main__":
    sys.exit(main())
