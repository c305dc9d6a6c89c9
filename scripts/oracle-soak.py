#!/usr/bin/env python3
"""Oracle soak of agentlsp's `diagnostics` MCP tool for Python (pyright) and
TypeScript (typescript-language-server), after the project's Go soak
(test/fresh/soak_test.go).

Each round changes 1-3 modules on disk (plain writes), calls the tool at once
for 1-2 files, then runs the oracle (pyright CLI / tsc --noEmit -p .) with
the disk unchanged and compares the errors (line, first line of message) of
every file the tool marked fresh.

usage: oracle-soak.py LANG DIR [--rounds N] [--minutes M] [--seed S]

LANG is py or ts; DIR is created (a project written there); AGENTLSP_BIN
names the agentlsp binary (go build -o /tmp/agentlsp ./cmd/agentlsp). The
servers and oracles are those `bash scripts/install-servers.sh` installs in
~/.cache/agentlsp. It prints a line per round and writes beside DIR: DIR.rounds.jsonl
(every round), DIR.summary.json, DIR.agentlsp.stderr. Bounded by --rounds
and --minutes; not part of the test run (it takes minutes per language).
"""
import argparse
import copy
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import threading
import time

BIN = os.path.expanduser("~/.cache/agentlsp/npm/node_modules/.bin")
AGENTLSP = os.environ.get("AGENTLSP_BIN", "agentlsp")
MODULES = ["core", "models", "utils", "service", "api", "cli"]
# importers[m]: the modules that import m
IMPORTERS = {"core": ["models", "service"], "models": ["service"], "utils": ["service", "cli"],
             "service": ["api", "cli"], "api": ["cli"], "cli": []}


# ---------------------------------------------------------------- project state

def initial_state():
    return {
        "core": {"exists": True, "sig2": False, "cfg": "Config", "limit_str": False, "bad": False},
        "models": {"exists": True, "cfg": "Config", "name": "Model", "args2": False, "bad": False},
        "utils": {"exists": True, "param_str": False, "bad": False},
        "service": {"exists": True, "model": "Model", "args2": False, "run_str": False},
        "api": {"exists": True, "ret_str": False},
        "cli": {"exists": True, "arg_str": False},
    }


def other(v, a, b):
    return b if v == a else a


# Changes: (module, description, mutate(state_of_module))
CHANGES = [
    ("core", "toggle signature of compute (1<->2 params)", lambda s: s.update(sig2=not s["sig2"])),
    ("core", "rename exported class Config<->Settings", lambda s: s.update(cfg=other(s["cfg"], "Config", "Settings"))),
    ("core", "toggle type of LIMIT (int<->str)", lambda s: s.update(limit_str=not s["limit_str"])),
    ("core", "break/fix a type inside core", lambda s: s.update(bad=not s["bad"])),
    ("models", "switch imported name Config<->Settings", lambda s: s.update(cfg=other(s["cfg"], "Config", "Settings"))),
    ("models", "rename exported class Model<->Record", lambda s: s.update(name=other(s["name"], "Model", "Record"))),
    ("models", "toggle compute call arity", lambda s: s.update(args2=not s["args2"])),
    ("models", "break/fix a type inside models", lambda s: s.update(bad=not s["bad"])),
    ("utils", "toggle fmt parameter type (int<->str)", lambda s: s.update(param_str=not s["param_str"])),
    ("utils", "break/fix fmt's return type", lambda s: s.update(bad=not s["bad"])),
    ("service", "switch imported name Model<->Record", lambda s: s.update(model=other(s["model"], "Model", "Record"))),
    ("service", "toggle compute call arity", lambda s: s.update(args2=not s["args2"])),
    ("service", "toggle run's return type (int<->str)", lambda s: s.update(run_str=not s["run_str"])),
    ("api", "toggle handle's return type (int<->str)", lambda s: s.update(ret_str=not s["ret_str"])),
    ("cli", "toggle fmt argument (1<->'1')", lambda s: s.update(arg_str=not s["arg_str"])),
]
DELETABLE = ["core", "models", "utils", "service", "api"]


def py_files(st):
    c, m, u, s, a, k = (st[x] for x in MODULES)
    out = {"pyproject.toml": '[project]\nname = "app"\nversion = "0.1.0"\n', "app/__init__.py": ""}
    out["app/core.py"] = (
        '"""Core."""\n\n\n'
        f"class {c['cfg']}:\n    def __init__(self, name: str) -> None:\n        self.name = name\n\n\n"
        + (f'LIMIT: str = "10"\n\n\n' if c["limit_str"] else "LIMIT: int = 10\n\n\n")
        + ("def compute(x: int, y: int) -> int:\n    return x + y\n" if c["sig2"]
           else "def compute(x: int) -> int:\n    return x\n")
        + ('\n\ndef broken() -> int:\n    return "nope"\n' if c["bad"] else ""))
    out["app/models.py"] = (
        f"from app.core import {m['cfg']}, compute\n\n\n"
        f"class {m['name']}:\n    def __init__(self, cfg: {m['cfg']}) -> None:\n        self.cfg = cfg\n"
        f"        self.size: int = compute(1{', 2' if m['args2'] else ''})\n"
        + ("\n    def label(self) -> int:\n        return self.cfg.name\n" if m["bad"] else ""))
    out["app/utils.py"] = (
        f"def fmt(v: {'str' if u['param_str'] else 'int'}) -> str:\n"
        + ("    return 3\n" if u["bad"] else "    return str(v)\n"))
    out["app/service.py"] = (
        "from app.core import LIMIT, compute\n"
        f"from app.models import {s['model']}\n"
        "from app.utils import fmt\n\n\n"
        f"class Service:\n    def __init__(self, model: {s['model']}) -> None:\n        self.model = model\n\n"
        + ("    def run(self) -> str:\n        return fmt(str(self.model.size))\n" if s["run_str"] else
           f"    def run(self) -> int:\n        return compute(self.model.size{', 1' if s['args2'] else ''})\n")
        + "\n    def label(self) -> str:\n        return fmt(LIMIT)\n")
    out["app/api.py"] = (
        "from app.service import Service\n\n\n"
        f"def handle(s: Service) -> {'str' if a['ret_str'] else 'int'}:\n    return s.run()\n")
    out["app/cli.py"] = (
        "from app.api import handle\nfrom app.service import Service\nfrom app.utils import fmt\n\n\n"
        f"def main() -> str:\n    return fmt({chr(34) + '1' + chr(34) if k['arg_str'] else '1'})\n\n\n"
        "def run_all(s: Service) -> int:\n    return handle(s)\n")
    for mod in MODULES:
        if not st[mod]["exists"]:
            del out[f"app/{mod}.py"]
    return out


def ts_files(st):
    c, m, u, s, a, k = (st[x] for x in MODULES)
    out = {
        "package.json": json.dumps({"name": "app", "version": "0.1.0", "private": True}, indent=2) + "\n",
        "tsconfig.json": json.dumps({"compilerOptions": {
            "target": "es2022", "module": "esnext", "moduleResolution": "bundler", "lib": ["es2022"],
            "strict": True, "noEmit": True, "types": [], "skipLibCheck": True}, "include": ["src"]}, indent=2) + "\n",
    }
    out["src/core.ts"] = (
        f"export class {c['cfg']} {{\n  constructor(public name: string) {{}}\n}}\n\n"
        + ('export const LIMIT: string = "10";\n\n' if c["limit_str"] else "export const LIMIT: number = 10;\n\n")
        + ("export function compute(x: number, y: number): number {\n  return x + y;\n}\n" if c["sig2"]
           else "export function compute(x: number): number {\n  return x;\n}\n")
        + ('\nexport function broken(): number {\n  return "nope";\n}\n' if c["bad"] else ""))
    out["src/models.ts"] = (
        f'import {{ {m["cfg"]}, compute }} from "./core";\n\n'
        f"export class {m['name']} {{\n  size: number;\n  constructor(public cfg: {m['cfg']}) {{\n"
        f"    this.size = compute(1{', 2' if m['args2'] else ''});\n  }}\n"
        + ("\n  label(): number {\n    return this.cfg.name;\n  }\n" if m["bad"] else "") + "}\n")
    out["src/utils.ts"] = (
        f"export function fmt(v: {'string' if u['param_str'] else 'number'}): string {{\n"
        + ("  return 3;\n" if u["bad"] else "  return String(v);\n") + "}\n")
    out["src/service.ts"] = (
        'import { LIMIT, compute } from "./core";\n'
        f'import {{ {s["model"]} }} from "./models";\n'
        'import { fmt } from "./utils";\n\n'
        f"export class Service {{\n  constructor(public model: {s['model']}) {{}}\n\n"
        + ("  run(): string {\n    return fmt(String(this.model.size));\n  }\n" if s["run_str"] else
           f"  run(): number {{\n    return compute(this.model.size{', 1' if s['args2'] else ''});\n  }}\n")
        + "\n  label(): string {\n    return fmt(LIMIT);\n  }\n}\n")
    out["src/api.ts"] = (
        'import { Service } from "./service";\n\n'
        f"export function handle(s: Service): {'string' if a['ret_str'] else 'number'} {{\n  return s.run();\n}}\n")
    out["src/cli.ts"] = (
        'import { handle } from "./api";\nimport { Service } from "./service";\nimport { fmt } from "./utils";\n\n'
        f"export function main(): string {{\n  return fmt({chr(34) + '1' + chr(34) if k['arg_str'] else '1'});\n}}\n\n"
        "export function runAll(s: Service): number {\n  return handle(s);\n}\n")
    for mod in MODULES:
        if not st[mod]["exists"]:
            del out[f"src/{mod}.ts"]
    return out


def mod_path(lang, mod):
    return f"app/{mod}.py" if lang == "py" else f"src/{mod}.ts"


def write(ws, rel, text):
    p = os.path.join(ws, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:  # a plain write: truncate, write
        f.write(text)


def sync(ws, before, now):
    for rel, text in now.items():
        if before.get(rel) != text:
            write(ws, rel, text)
    for rel in before:
        if rel not in now:
            os.remove(os.path.join(ws, rel))


# ---------------------------------------------------------------- oracles

def pyright_oracle(ws, rels):
    r = subprocess.run([os.path.join(BIN, "pyright"), "--outputjson"] + rels, cwd=ws,
                       capture_output=True, text=True, timeout=300)
    data = json.loads(r.stdout)
    out = {rel: [] for rel in rels}
    for d in data.get("generalDiagnostics", []):
        if d.get("severity") != "error":
            continue
        rel = os.path.relpath(d["file"], ws)
        if rel in out:
            out[rel].append(f"{d['range']['start']['line'] + 1}: {first_line(d['message'])}")
    return {k: sorted(v) for k, v in out.items()}


TSC_LINE = re.compile(r"^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$")


def tsc_oracle(ws, rels):
    r = subprocess.run([os.path.join(BIN, "tsc"), "--noEmit", "-p", ".", "--pretty", "false"], cwd=ws,
                       capture_output=True, text=True, timeout=300)
    out = {rel: [] for rel in rels}
    extra = []  # errors in files not asked about, for the log
    for line in r.stdout.splitlines():
        m = TSC_LINE.match(line)
        if not m:
            continue
        rel = os.path.normpath(m.group(1))
        e = f"{m.group(2)}: {first_line(m.group(5))}"
        if rel in out:
            out[rel].append(e)
        else:
            extra.append(f"{rel}:{e}")
    return {k: sorted(v) for k, v in out.items()}


def cold_check(ws, rels):
    """A third opinion: `agentlsp check` with servers started for it, on the disk as it is."""
    gone = [x for x in rels if not os.path.exists(os.path.join(ws, x))]
    rels = [x for x in rels if x not in gone]
    if not rels:
        return {x: [] for x in gone}
    r = subprocess.run([AGENTLSP, "check", "--json", "--severity", "error"] + rels, cwd=ws,
                       capture_output=True, text=True, timeout=300)
    try:
        data = json.loads(r.stdout)
    except ValueError:
        return {"_error": r.stdout + r.stderr}
    out = {f["path"]: tool_errors(f) for f in data["files"] if f["status"] == "fresh"}
    out.update({x: [] for x in gone})
    return out


def first_line(s):
    return s.split("\n", 1)[0].strip()


# ---------------------------------------------------------------- MCP client

class MCP:
    def __init__(self, ws, log):
        self.errf = open(log, "ab")
        self.p = subprocess.Popen([AGENTLSP, "mcp", "--workspace", ws], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.errf, cwd=ws)
        self.q = queue.Queue()
        self.next_id = 0
        self.notes = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            line = line.strip()
            if not line:
                continue
            try:
                self.q.put(json.loads(line))
            except ValueError:
                self.q.put({"_bad": line.decode(errors="replace")})
        self.q.put(None)

    def send(self, msg):
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()

    def request(self, method, params, timeout=180):
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.time() + timeout
        while True:
            msg = self.q.get(timeout=max(0.1, deadline - time.time()))
            if msg is None:
                raise RuntimeError("agentlsp exited")
            if msg.get("id") == rid and "method" not in msg:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg["result"]
            if "method" in msg and "id" in msg:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": "not supported"}})
            else:
                self.notes.append(msg)
                del self.notes[:-50]

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.terminate()
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self.errf.close()


def tool_errors(f):
    return sorted(f"{d['line']}: {first_line(d['message'])}" for d in f["diagnostics"]
                  if d["severity"] == "error")


# ---------------------------------------------------------------- the soak

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lang", choices=["py", "ts"])
    ap.add_argument("dir")
    ap.add_argument("--rounds", type=int, default=120)
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    lang, ws = args.lang, os.path.abspath(args.dir)
    gen = py_files if lang == "py" else ts_files
    oracle = pyright_oracle if lang == "py" else tsc_oracle
    rng = random.Random(args.seed)
    if os.path.exists(ws):
        shutil.rmtree(ws)
    os.makedirs(ws)
    st = initial_state()
    sync(ws, {}, gen(st))
    logf = open(ws + ".rounds.jsonl", "w")

    mcp = MCP(ws, ws + ".agentlsp.stderr")
    init = mcp.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "oracle-soak", "version": "0"}})
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    tools = mcp.request("tools/list", {})["tools"]
    diag = next(t for t in tools if t["name"] == "diagnostics")
    print("server:", init.get("serverInfo"), "protocol", init.get("protocolVersion"))
    print("diagnostics schema:", json.dumps(diag["inputSchema"]))
    props = diag["inputSchema"]["properties"]
    assert "files" in props, props

    def call(files):
        t0 = time.monotonic()
        res = mcp.request("tools/call", {"name": "diagnostics", "arguments": {"files": files}})
        dt = time.monotonic() - t0
        if res.get("isError"):
            return dt, None, res
        return dt, res["structuredContent"]["files"], res

    # warm up: every module until fresh
    allfiles = [mod_path(lang, m) for m in MODULES]
    t0 = time.monotonic()
    for _ in range(10):
        dt, files, res = call(allfiles)
        if files and all(f["status"] == "fresh" for f in files):
            break
    print(f"warm-up {time.monotonic() - t0:.1f}s:", [(f["path"], f["status"]) for f in files or []])

    stats = {"rounds": 0, "fresh": 0, "false_fresh": 0, "other_fresh": 0, "other_false_fresh": 0,
             "statuses": {}, "lat": [], "errors": 0, "oracle_only": 0}
    false_list = []
    start = time.monotonic()
    for rnd in range(1, args.rounds + 1):
        if time.monotonic() - start > args.minutes * 60:
            break
        before_files = gen(st)
        before_state = copy.deepcopy(st)
        changed = []
        what = []
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            r = rng.random()
            if r < 0.15:  # delete or restore a module
                mod = rng.choice(DELETABLE)
                st[mod]["exists"] = not st[mod]["exists"]
                what.append(f"{'restore' if st[mod]['exists'] else 'delete'} {mod}")
            elif r < 0.22:  # delete and recreate at once, with a change
                cands = [x for x in DELETABLE if st[x]["exists"]]
                if not cands:
                    continue
                mod = rng.choice(cands)
                opts = [c for c in CHANGES if c[0] == mod]
                c = rng.choice(opts)
                c[2](st[mod])
                p = os.path.join(ws, mod_path(lang, mod))
                # apply the recreate now, the rest with sync below
                if os.path.exists(p):  # guard: a module restored earlier this round is not on disk yet
                    os.remove(p)
                what.append(f"delete+recreate {mod} with: {c[1]}")
                before_files.pop(mod_path(lang, mod), None)
            else:
                c = rng.choice(CHANGES)
                mod = c[0]
                if not st[mod]["exists"]:
                    st[mod]["exists"] = True
                    what.append(f"restore {mod}")
                c[2](st[mod])
                what.append(f"{mod}: {c[1]}")
            changed.append(mod)
        now_files = gen(st)
        sync(ws, before_files, now_files)
        # which files to ask about
        existing = [m for m in MODULES if st[m]["exists"]]
        named = []
        for _ in range(rng.choice([1, 1, 2])):
            r = rng.random()
            cm = rng.choice(changed) if changed else rng.choice(existing)
            if r < 0.3 and st[cm]["exists"]:
                pick = cm
            elif r < 0.8:
                imps = [x for x in IMPORTERS[cm] if st[x]["exists"]]
                # also importers of importers
                imps2 = [y for x in IMPORTERS[cm] for y in IMPORTERS[x] if st[y]["exists"]]
                pool = imps + imps2
                pick = rng.choice(pool) if pool else rng.choice(existing)
            else:
                pick = rng.choice(existing)
            if mod_path(lang, pick) not in named:
                named.append(mod_path(lang, pick))
        dt, files, res = call(named)
        stats["rounds"] += 1
        stats["lat"].append(dt)
        rec = {"round": rnd, "changes": what, "named": named, "latency": round(dt, 3),
               "state_before": before_state, "state": copy.deepcopy(st)}
        if files is None:
            stats["errors"] += 1
            rec["tool_error"] = res
            print(f"round {rnd}: tool error {res}")
            logf.write(json.dumps(rec) + "\n")
            logf.flush()
            continue
        fresh_paths = [f["path"] for f in files if f["status"] == "fresh"]
        on_disk = [x for x in sorted(set(fresh_paths + named)) if os.path.exists(os.path.join(ws, x))]
        want = oracle(ws, on_disk) if fresh_paths and on_disk else {}
        for x in fresh_paths:
            if x not in on_disk:
                want[x] = []  # a deleted file: no errors are current
                rec.setdefault("deleted_but_reported", []).append(x)
        rec["answers"] = []
        bad = False
        for f in files:
            a = {"path": f["path"], "other": f.get("other", False), "status": f["status"],
                 "detail": f.get("detail", ""), "errors": tool_errors(f), "more": f.get("more", 0),
                 "all": [(d["severity"], d["line"], d["message"]) for d in f["diagnostics"]]}
            key = "other_" if a["other"] else ""
            if f["status"] != "fresh":
                stats["statuses"][key + f["status"]] = stats["statuses"].get(key + f["status"], 0) + 1
            else:
                stats[key + "fresh"] = stats.get(key + "fresh", 0) + 1
                a["oracle"] = want.get(f["path"])
                # a named file reports everything current: it must equal the
                # oracle; an other file reports only errors the session was not
                # shown: each must be in the oracle's
                if a["oracle"] is not None and (not set(a["errors"]) <= set(a["oracle"]) if a["other"]
                                                else a["oracle"] != a["errors"]):
                    a["mismatch"] = True
                    bad = True
            rec["answers"].append(a)
        if bad:
            # the second look: the same call again after the servers settled,
            # to tell a stale answer from a standing LSP-vs-CLI difference
            time.sleep(3)
            _, files2, _ = call(named)
            p2 = [f["path"] for f in files2 if os.path.exists(os.path.join(ws, f["path"]))]
            want2 = oracle(ws, sorted(set(p2))) if p2 else {}
            rec["recheck"] = [{"path": f["path"], "status": f["status"], "errors": tool_errors(f),
                               "oracle": want2.get(f["path"])} for f in files2]
            mism = [a["path"] for a in rec["answers"] if a.get("mismatch")]
            cold = cold_check(ws, mism)
            for a in rec["answers"]:
                if not a.get("mismatch"):
                    continue
                a["cold"] = cold.get(a["path"])
                if a["other"] and a["cold"] is not None and set(a["errors"]) <= set(a["cold"]):
                    a["verdict"] = "oracle_difference"
                    stats["oracle_only"] += 1
                elif not a["other"] and a["cold"] == a["errors"] and a["cold"] != a["oracle"]:
                    a["verdict"] = "oracle_difference"  # fresh servers agree with the tool
                    stats["oracle_only"] += 1
                else:
                    a["verdict"] = "false_fresh" if a["cold"] == a["oracle"] or a["other"] else "false_fresh?(cold differs from both)"
                    stats["other_false_fresh" if a["other"] else "false_fresh"] += 1
                    false_list.append(rnd)
        logf.write(json.dumps(rec) + "\n")
        logf.flush()
        summary = " ".join(f"{a['path']}={a['status']}{'!' if a.get('mismatch') else ''}" for a in rec["answers"])
        print(f"round {rnd:3d} {dt * 1000:7.0f}ms {'; '.join(what)} -> {summary}", flush=True)
    mcp.close()
    lat = sorted(stats["lat"])
    p = lambda q: lat[min(len(lat) - 1, int(len(lat) * q))] * 1000 if lat else 0
    stats["p50_ms"], stats["p99_ms"], stats["max_ms"] = round(p(0.5)), round(p(0.99)), round(lat[-1] * 1000)
    del stats["lat"]
    stats["false_rounds"] = false_list
    print("SUMMARY", json.dumps(stats))
    with open(ws + ".summary.json", "w") as f:
        json.dump(stats, f, indent=1)


if __name__ == "__main__":
    main()
