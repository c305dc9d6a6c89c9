#!/usr/bin/env python3
"""A bare LSP client's time to every diagnostic of many files: the floor
under `agentlsp check FILE...` on a server that diagnoses open files.

It starts gopls (or --server CMD) in DIR, initializes it as agentlsp does
(the built-in gopls settings: diagnosticsDelay 0, verboseWorkDoneProgress),
opens every FILE at once, and reads until every file was published and
the server has said nothing since for --quiet seconds (at most --timeout). It prints the time from the start to the end of the
initialize handshake, to the last publishDiagnostics, to the last
work-done progress end and to the last package load gopls logs, then the number of files published and of error
diagnostics. Time from the start of the process, as `time agentlsp check`
counts it (less agentlsp's own start and shutdown). Not part of the test
run; docs/BENCHMARKS.md ("agentlsp check of hundreds of files") has the
figures.

usage: lsp-open-all.py DIR FILE... [--server CMD] [--quiet S] [--timeout S]
"""
import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

SETTINGS = {"diagnosticsDelay": "0s", "symbolScope": "workspace", "verboseWorkDoneProgress": True}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", default="gopls")
    ap.add_argument("--quiet", type=float, default=3.0)
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("dir")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    root = os.path.abspath(a.dir)
    start = time.monotonic()
    p = subprocess.Popen(a.server.split(), cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)

    def send(msg):
        body = json.dumps(msg).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        p.stdin.flush()

    incoming = queue.Queue()

    def reader():  # lives until the server's stdout closes
        while True:
            headers = {}
            while True:
                line = p.stdout.readline()
                if not line:
                    incoming.put(None)
                    return
                if line == b"\r\n":
                    break
                k, v = line.decode().split(":", 1)
                headers[k.lower()] = v.strip()
            incoming.put(json.loads(p.stdout.read(int(headers["content-length"]))))

    threading.Thread(target=reader, daemon=True).start()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "processId": os.getpid(), "rootUri": "file://" + root, "initializationOptions": SETTINGS,
        "workspaceFolders": [{"uri": "file://" + root, "name": os.path.basename(root)}],
        "capabilities": {"window": {"workDoneProgress": True},
                         "workspace": {"configuration": True, "workspaceFolders": True},
                         "textDocument": {"publishDiagnostics": {"versionSupport": True}}}}})
    uris = {"file://" + os.path.join(root, f): f for f in a.files}
    published, errors = {}, {}
    t_init = t_pub = t_progress = t_load = None
    loads = 0
    last_heard = time.monotonic()
    while len(published) < len(uris) or time.monotonic() - last_heard < a.quiet:
        if time.monotonic() - start > a.timeout:
            break
        try:
            m = incoming.get(timeout=0.1)
        except queue.Empty:
            continue
        if m is None:
            sys.exit("the server exited")
        last_heard = time.monotonic()
        method = m.get("method")
        if m.get("id") == 1 and method is None:
            t_init = last_heard - start
            send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
            for uri, f in uris.items():
                with open(os.path.join(root, f)) as fh:
                    send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                        "uri": uri, "languageId": "go", "version": 1, "text": fh.read()}}})
        elif method == "workspace/configuration":
            send({"jsonrpc": "2.0", "id": m["id"], "result": [SETTINGS] * len(m["params"]["items"])})
        elif method is not None and "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        elif method == "textDocument/publishDiagnostics" and m["params"]["uri"] in uris:
            t_pub = last_heard - start
            uri = m["params"]["uri"]
            published[uri] = True
            errors[uri] = sum(1 for d in m["params"]["diagnostics"] if d.get("severity", 1) == 1)
        elif method == "$/progress" and m["params"]["value"].get("kind") == "end":
            t_progress = last_heard - start
        elif method == "window/logMessage" and "packages.Load" in m["params"]["message"]:
            t_load, loads = last_heard - start, loads + 1
    p.kill()
    p.wait()
    def secs(t):
        return "-" if t is None else f"{t:.2f} s"

    print(f"initialized {secs(t_init)}, last publication {secs(t_pub)}, last progress end {secs(t_progress)}, "
          f"last of {loads} package loads {secs(t_load)}; "
          f"{len(published)} of {len(uris)} files published, {sum(errors.values())} errors")


if __name__ == "__main__":
    main()
