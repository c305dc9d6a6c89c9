package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain re-executes the test binary as the fake server (testenv's
// marker is the harness's fakeEnv) and checks for leaks.
// TestMain checks, after the tests, for leaked goroutines (goleak) and
// child processes; see testenv.Main.
func TestMain(m *testing.M) { testenv.Main(m) }

// TestHarnessSmoke runs the harness for a few seconds with tiny parameters
// against both fake variants and every mode. It asserts that the report
// is complete and error-free, never timings.
func TestHarnessSmoke(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"--sessions", "4", "--roots", "2", "--files", "8", "--ops", "6",
		"--settle", "10ms", "--sleep", "10ms", "--sample", "10ms", "--diag-timeout", "30s", "--json", jsonPath}
	if err := run(ctx, args, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sc := range rep.Scenarios {
		names = append(names, sc.Name)
		checkScenario(t, sc)
	}
	if want := []string{"fake/push", "fake/pull"}; !cmp.Equal(names, want) {
		t.Errorf("scenarios = %v, want %v", names, want)
	}
	if len(rep.Checks) == 0 || rep.Machine.CPUs == 0 || rep.Machine.GoVersion == "" {
		t.Errorf("report incomplete: checks %d, machine %+v", len(rep.Checks), rep.Machine)
	}
	for _, want := range []string{"### fake/push", "### fake/pull", "| runtime |", "| per-session |", "### Targets"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, stdout.String())
		}
	}
}

// checkScenario checks one scenario's modes: all ran every operation
// without error (the sleep client may answer stale), with the servers each
// mode should start.
func checkScenario(t *testing.T, sc Scenario) {
	t.Helper()
	wantServers := map[string]int{modeDirect: 2, modeRuntime: 2, modePerSession: 4, modeSleep: 2}
	var modes []string
	for _, m := range sc.Modes {
		modes = append(modes, m.Mode)
		where := fmt.Sprintf("%s %s", sc.Name, m.Mode)
		// The sleep client's stale answers are what it is measured for,
		// not failures of the harness.
		stale := m.Errors["status_stale"]
		if m.Mode == modeSleep {
			delete(m.Errors, "status_stale")
			delete(m.Errors, "cold:status_stale")
		}
		if len(m.Errors) > 0 {
			t.Errorf("%s: errors %v (%v)", where, m.Errors, m.ErrorSamples)
		}
		if m.Ops+stale != 4*6 || m.Edit.Count != 4*3 || m.Nav.Count != 4*3 || m.Cold.Count != 4 {
			t.Errorf("%s: ops %d, edits %d, navs %d, cold %d; want 24, 12, 12, 4", where, m.Ops, m.Edit.Count, m.Nav.Count, m.Cold.Count)
		}
		if m.Servers != wantServers[m.Mode] {
			t.Errorf("%s: %d servers, want %d", where, m.Servers, wantServers[m.Mode])
		}
		if m.RSSPeakMB <= 0 || m.ServerRSSPeakMB <= 0 || m.GoroutinesPeak <= 0 {
			t.Errorf("%s: resources not sampled: %+v", where, m)
		}
	}
	if want := []string{modeDirect, modeRuntime, modePerSession, modeSleep}; !cmp.Equal(modes, want) {
		t.Errorf("%s: modes = %v, want %v", sc.Name, modes, want)
	}
	if sc.Ratios.ThroughputVsDirect <= 0 || sc.Ratios.ServersPerSessionVsShared != 2 {
		t.Errorf("%s: ratios %+v", sc.Name, sc.Ratios)
	}
}

// TestIncrementalChange applies the direct client's incremental change and
// checks that it yields the new text.
func TestIncrementalChange(t *testing.T) {
	tests := []struct{ old, new string }{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\nb\nc\n", "a\nb\nc\nd\n"},
		{"a\nb\nc\n", "b\nc\n"},
		{"", "x\n"},
		{"same\n", "same\n"},
		{"héllo\n", "hello\n"}, // non-ASCII: full text
	}
	for _, tc := range tests {
		ch := incrementalChange(tc.old, tc.new)
		if got := apply(tc.old, ch); got != tc.new {
			t.Errorf("incrementalChange(%q, %q) = %v: applies to %q", tc.old, tc.new, ch, got)
		}
	}
}

// apply applies a change to ASCII text.
func apply(text string, ch map[string]any) string {
	r, ok := ch["range"].(map[string]any)
	if !ok {
		return ch["text"].(string)
	}
	off := func(p map[string]int) int {
		lines := strings.SplitAfter(text, "\n")
		o := 0
		for _, l := range lines[:p["line"]] {
			o += len(l)
		}
		return o + p["character"]
	}
	start, end := off(r["start"].(map[string]int)), off(r["end"].(map[string]int))
	return text[:start] + ch["text"].(string) + text[end:]
}

// TestFilesOf checks that sessions own disjoint files when there are
// enough, and share them otherwise.
func TestFilesOf(t *testing.T) {
	w, err := fakeWorkload(t.TempDir(), 2, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for s := range 6 {
		fs, exclusive := w.filesOf(s, 6)
		if !exclusive || len(fs) == 0 {
			t.Fatalf("filesOf(%d, 6) = %d files, exclusive %v", s, len(fs), exclusive)
		}
		for _, f := range fs {
			if f.root != s%2 {
				t.Errorf("session %d got a file of root %d", s, f.root)
			}
			seen[f.path]++
		}
	}
	if len(seen) != 8 {
		t.Errorf("%d files used, want all 8", len(seen))
	}
	for p, n := range seen {
		if n != 1 {
			t.Errorf("%s used by %d sessions", p, n)
		}
	}
	if fs, exclusive := w.filesOf(9, 20); exclusive || len(fs) != 1 {
		t.Errorf("filesOf(9, 20) = %d files, exclusive %v; want 1 shared", len(fs), exclusive)
	}
}

// TestSummarize checks the nearest-rank percentiles.
func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarize(ds)
	want := Latency{Count: 100, Mean: 50.5, P50: 50, P95: 95, P99: 99, Max: 100}
	if got != want {
		t.Errorf("summarize = %+v, want %+v", got, want)
	}
}

// TestModuleWorkload: --module picks files that compile everywhere, one
// package after another, and an edit's text has an error exactly when its
// number is odd; navigation points at the first function's name.
func TestModuleWorkload(t *testing.T) {
	src := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.22\n",
		"a/a.go":          "package a\n\n// A is a.\nfunc A() int { return 1 }\n",
		"a/b.go":          "package a\n\nfunc (T) m() {}\n\n  func notAtStart() {}\n\nfunc B() {}\n",
		"a/a_linux.go":    "package a\n\nfunc L() {}\n",
		"a/a_test.go":     "package a\n\nfunc TestA() {}\n",
		"c/c.go":          "//go:build ignore\n\npackage c\n\nfunc C() {}\n",
		"d/d.go":          "package d\n\ntype T struct{}\n\nfunc (T) M() {}\n",
		"e/e.go":          "package e\n\nfunc E() {}\n",
		"testdata/x/x.go": "package x\n\nfunc X() {}\n",
		"nested/go.mod":   "module example.com/nested\n",
		"nested/n/n.go":   "package n\n\nfunc N() {}\n",
		"gen/gen.go":      "// Code generated by hand. DO NOT EDIT.\n\npackage gen\n\nfunc G() {}\n",
	}
	for name, text := range files {
		if err := writeFile(filepath.Join(src, name), text); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	w, err := moduleWorkload(src, dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range w.files[0] {
		rel, _ := filepath.Rel(w.roots[0], f.path)
		got = append(got, fmt.Sprintf("%s %d:%d", filepath.ToSlash(rel), f.hover.Line, f.hover.Character))
	}
	// One per package first (a, e), then a's second file.
	if want := []string{"a/a.go 3:5", "e/e.go 2:5", "a/b.go 6:5"}; !cmp.Equal(got, want) {
		t.Errorf("picked %v, want %v", got, want)
	}
	f := w.files[0][0]
	if f.text(2) != files["a/a.go"] || !strings.HasPrefix(f.text(3), files["a/a.go"]) || !strings.Contains(f.text(3), `var _ int = "agentlsp edit 3"`) {
		t.Errorf("texts: even %q, odd %q", f.text(2), f.text(3))
	}
	if _, err := os.Stat(filepath.Join(w.roots[0], "a", "a_test.go")); err != nil {
		t.Errorf("the module was not copied whole: %v", err)
	}
	if _, err := moduleWorkload(t.TempDir(), dir, 3); err == nil || !strings.Contains(err.Error(), "not a Go module") {
		t.Errorf("a directory without go.mod: err %v", err)
	}
}
