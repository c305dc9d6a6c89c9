package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

// Ratios, target checks, and the JSON and markdown renderings.

// mode returns the scenario's result for a mode, or nil.
func (sc *Scenario) mode(name string) *ModeResult {
	for i := range sc.Modes {
		if sc.Modes[i].Mode == name {
			return &sc.Modes[i]
		}
	}
	return nil
}

// ratios compares the modes that ran.
func ratios(sc Scenario) Ratios {
	var r Ratios
	rt, direct, per, sleep := sc.mode(modeRuntime), sc.mode(modeDirect), sc.mode(modePerSession), sc.mode(modeSleep)
	if rt != nil && direct != nil {
		r.ThroughputVsDirect = ratio(rt.OpsPerSec, direct.OpsPerSec)
		r.EditAddedP50Ms, r.EditAddedP99Ms = round3(rt.Edit.P50-direct.Edit.P50), round3(rt.Edit.P99-direct.Edit.P99)
		r.NavAddedP50Ms, r.NavAddedP99Ms = round3(rt.Nav.P50-direct.Nav.P50), round3(rt.Nav.P99-direct.Nav.P99)
	}
	if rt != nil && per != nil {
		r.ServersPerSessionVsShared = ratio(float64(per.Servers), float64(rt.Servers))
		r.ServerRSSPerSessionVsShared = ratio(per.ServerRSSPeakMB, rt.ServerRSSPeakMB)
		r.RSSPerSessionVsShared = ratio(per.RSSPeakMB-per.RSSStartMB, rt.RSSPeakMB-rt.RSSStartMB)
	}
	if rt != nil && sleep != nil {
		r.SleepVsRuntimeEditP50 = ratio(sleep.Edit.P50, rt.Edit.P50)
		r.SleepVsRuntimeEditP99 = ratio(sleep.Edit.P99, rt.Edit.P99)
		r.SleepStale = ratio(float64(sleep.Errors["status_stale"]), float64(sleep.Edit.Count))
	}
	return r
}

func round3(x float64) float64 { return ratio(x, 1) }

// checks evaluates the targets on what ran, over all the runs of
// each scenario: the median throughput ratio, and for everything else the
// worst run. Each target names the parameters it is defined for; it is
// reported for whatever this run's parameters are, and docs/BENCHMARKS.md
// says which run is the target's run.
func checks(rep *Report, o *options) []Check {
	var out []Check
	add := func(sc, target string, met bool, format string, args ...any) {
		out = append(out, Check{Scenario: sc, Target: target, Met: met, Value: fmt.Sprintf(format, args...)})
	}
	for _, name := range scenarioNames(rep) {
		var rts []*ModeResult
		var tput []float64
		for i := range rep.Scenarios {
			sc := &rep.Scenarios[i]
			if rt := sc.mode(modeRuntime); sc.Name == name && rt != nil {
				rts = append(rts, rt)
				if sc.mode(modeDirect) != nil {
					tput = append(tput, sc.Ratios.ThroughputVsDirect)
				}
			}
		}
		if len(rts) == 0 {
			continue
		}
		if len(tput) > 0 && o.server == "fake" {
			med := median(tput)
			add(name, "throughput >= 0.9 x direct client (fake, 64 sessions)", med >= 0.9,
				"median %.3f of %v at %d sessions", med, tput, o.sessions)
		}
		out = append(out, runtimeChecks(name, rts, o)...)
	}
	return out
}

// worstRun is the runtime mode's worst figures over a scenario's runs.
type worstRun struct {
	p99, over99, rss     float64
	errs                 map[string]int
	servers              map[int]bool
	goroutinesOK         bool
	idle, peak, inflight int
}

func worst(rts []*ModeResult) worstRun {
	w := worstRun{errs: map[string]int{}, servers: map[int]bool{}, goroutinesOK: true}
	for _, rt := range rts {
		w.p99, w.over99, w.rss = max(w.p99, rt.Edit.P99), max(w.over99, overheadP99(rt)), max(w.rss, rt.RSSPeakMB)
		for k, n := range rt.Errors {
			w.errs[k] += n
		}
		w.servers[rt.Servers] = true
		bound := 16*rt.Servers + 64
		w.goroutinesOK = w.goroutinesOK && rt.ClientGoroutinesIdle <= bound && rt.ClientGoroutinesPeak <= rt.InFlightPeak+bound
		w.idle, w.peak, w.inflight = max(w.idle, rt.ClientGoroutinesIdle), max(w.peak, rt.ClientGoroutinesPeak), max(w.inflight, rt.InFlightPeak)
	}
	return w
}

// runtimeChecks are the targets on the runtime mode alone, worst run.
func runtimeChecks(name string, rts []*ModeResult, o *options) []Check {
	var out []Check
	add := func(target string, met bool, format string, args ...any) {
		out = append(out, Check{Scenario: name, Target: target, Met: met, Value: fmt.Sprintf(format, args...)})
	}
	w := worst(rts)
	switch settle := msOf(o.settle); name {
	case "fake/push":
		add(fmt.Sprintf("edit-to-fresh p99 <= settle + 5 ms (%.0f ms)", settle+5), w.p99 <= settle+5,
			"p99 %.2f ms (beyond the settle window: %.2f ms) at %d sessions", w.p99, w.over99, o.sessions)
	case "fake/pull":
		add("edit-to-fresh p99 <= 5 ms (pull-capable fake)", w.p99 <= 5, "p99 %.2f ms at %d sessions", w.p99, o.sessions)
	}
	add("no errors", total(w.errs) == 0, "%d errors (%s)", total(w.errs), errorsText(w.errs))
	add("goroutines proportional to servers and in-flight requests, not sessions", w.goroutinesOK,
		"idle %d, peak %d, with %d servers, peak %d ops in flight, %d sessions (bound: 16 per server + 64, + in flight)",
		w.idle, w.peak, rts[0].Servers, w.inflight, o.sessions)
	add("runtime RSS < 300 MB (1,000 sessions, 10 roots)", w.rss < 300,
		"peak %.0f MB (process: runtime + harness) at %d sessions", w.rss, o.sessions)
	want := min(o.sessions, o.roots)
	add("shared mode starts one server per root", len(w.servers) == 1 && w.servers[want],
		"%v servers for %d roots and %d sessions", slices.Sorted(maps.Keys(w.servers)), o.roots, o.sessions)
	return out
}

// scenarioNames lists the scenario names in order, once each.
func scenarioNames(rep *Report) []string {
	var names []string
	for _, sc := range rep.Scenarios {
		if !slices.Contains(names, sc.Name) {
			names = append(names, sc.Name)
		}
	}
	return names
}

// median of xs (not empty); xs is not changed.
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func overheadP99(m *ModeResult) float64 {
	if m.EditOverhead == nil {
		return 0
	}
	return m.EditOverhead.P99
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// writeJSON writes the report, indented.
func writeJSON(path string, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// writeMarkdown writes the report as markdown tables.
func writeMarkdown(w io.Writer, rep *Report) error {
	var b strings.Builder
	m, p := rep.Machine, rep.Params
	fmt.Fprintf(&b, "Machine: %d CPUs (%s), %.0f MB, %s, %s", m.CPUs, m.CPUModel, m.MemoryMB, m.OS, m.GoVersion)
	if m.Server != "" {
		fmt.Fprintf(&b, ", %s", m.Server)
	}
	fmt.Fprintf(&b, "\n\nParameters: %d sessions, %d roots, %d files, %d lines, %d ops per session (%d navigations per edit), settle %.0f ms, sleep %.0f ms, diagnostics timeout %.0f ms, shared files: %v, %d run(s)\n",
		p.Sessions, p.Roots, p.Files, p.Lines, p.OpsPerSess, p.NavsPerEdit, p.SettleMs, p.SleepMs, p.DiagTimeout, p.SharedFiles, p.Repeat)
	if p.Module != "" {
		fmt.Fprintf(&b, "\nModule: a copy of %s (the files are its own; lines and packages do not apply)\n", p.Module)
	}
	for _, sc := range rep.Scenarios {
		scenarioMarkdown(&b, sc)
	}
	b.WriteString("\n### Targets\n\n| scenario | target | met | value |\n|---|---|---|---|\n")
	for _, c := range rep.Checks {
		met := "no"
		if c.Met {
			met = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", c.Scenario, c.Target, met, strings.ReplaceAll(c.Value, "|", "/"))
	}
	fmt.Fprintf(&b, "\nProcess peak RSS over the whole run (VmHWM): %.0f MB\n", rep.HWMMB)
	_, err := io.WriteString(w, b.String())
	return err
}

// scenarioMarkdown writes one scenario's tables and ratios.
func scenarioMarkdown(b *strings.Builder, sc Scenario) {
	fmt.Fprintf(b, "\n### %s (run %d)\n\n", sc.Name, sc.Run)
	b.WriteString("| mode | ops/s | edit p50 | edit p95 | edit p99 | edit overhead p50 / p99 | nav p50 | nav p95 | nav p99 | cold edit p50 / max | errors | edits naming other files |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range sc.Modes {
		over := "-"
		if m.EditOverhead != nil {
			over = fmt.Sprintf("%.2f / %.2f", m.EditOverhead.P50, m.EditOverhead.P99)
		}
		fmt.Fprintf(b, "| %s | %.0f | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %.2f | %.0f / %.0f | %s | %d |\n",
			m.Mode, m.OpsPerSec, m.Edit.P50, m.Edit.P95, m.Edit.P99, over, m.Nav.P50, m.Nav.P95, m.Nav.P99,
			m.Cold.P50, m.Cold.Max, errorsText(m.Errors), m.EditsWithOtherFiles)
	}
	b.WriteString("\nLatencies in ms. Resources:\n\n")
	b.WriteString("| mode | servers | server RSS peak MB | process RSS start / peak MB | Go heap peak MB | goroutines peak (all / client / client idle) | in flight peak | CPU s (process / servers) | shutdown ms |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, m := range sc.Modes {
		fmt.Fprintf(b, "| %s | %d | %.0f | %.0f / %.0f | %.0f | %d / %d / %d | %d | %.1f / %.1f | %.0f |\n",
			m.Mode, m.Servers, m.ServerRSSPeakMB, m.RSSStartMB, m.RSSPeakMB, m.HeapPeakMB,
			m.GoroutinesPeak, m.ClientGoroutinesPeak, m.ClientGoroutinesIdle, m.InFlightPeak,
			m.CPUSeconds, m.ServerCPUSeconds, m.ShutdownMs)
	}
	b.WriteString(ratiosText(sc))
}

// ratiosText renders the ratios of the modes that ran.
func ratiosText(sc Scenario) string {
	r := sc.Ratios
	var parts []string
	if sc.mode(modeRuntime) != nil && sc.mode(modeDirect) != nil {
		parts = append(parts, fmt.Sprintf("throughput runtime/direct %.3f; added latency runtime-direct: edit p50 %+.2f ms, p99 %+.2f ms, nav p50 %+.2f ms, p99 %+.2f ms",
			r.ThroughputVsDirect, r.EditAddedP50Ms, r.EditAddedP99Ms, r.NavAddedP50Ms, r.NavAddedP99Ms))
	}
	if sc.mode(modeRuntime) != nil && sc.mode(modePerSession) != nil {
		parts = append(parts, fmt.Sprintf("per-session/shared: servers %.1fx, server RSS %.1fx, process RSS growth %.1fx",
			r.ServersPerSessionVsShared, r.ServerRSSPerSessionVsShared, r.RSSPerSessionVsShared))
	}
	if sc.mode(modeRuntime) != nil && sc.mode(modeSleep) != nil {
		parts = append(parts, fmt.Sprintf("sleep/runtime edit latency: p50 %.2fx, p99 %.2fx, stale answers %.1f%%",
			r.SleepVsRuntimeEditP50, r.SleepVsRuntimeEditP99, 100*r.SleepStale))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\nRatios: " + strings.Join(parts, "; ") + "\n"
}

// errorsText renders errors by kind, "0" when none.
func errorsText(m map[string]int) string {
	if len(m) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
