package main

import (
	"encoding/json"
	"os"
	"strings"
)

// The report: what one run saw. The JSON field names are the format.

// Report is the whole run.
type Report struct {
	Machine Machine         `json:"machine"`
	Params  Params          `json:"params"`
	Startup []StartupResult `json:"startup"`
	// CallsS is how long calls were made, including the drain.
	CallsS float64    `json:"calls_s"`
	Ops    []OpResult `json:"operations"`
	Total  OpResult   `json:"total"`
	// ToolErrors counts tool errors by kind (errorKind; "unsupported" is
	// pyright's right refusal of goToImplementation), NonFresh the
	// statuses of non-fresh diagnostics and incomplete answers.
	ToolErrors map[string]int `json:"tool_errors"`
	NonFresh   map[string]int `json:"non_fresh"`
	// WrongKinds counts wrong answers by cause.
	WrongKinds map[string]int `json:"wrong_kinds"`
	// OtherFiles counts the other files of the diagnostics answers.
	OtherFiles otherFiles `json:"other_files"`
	// Samples of the calls that were not right, by outcome.
	Wrong      []Sample       `json:"wrong_samples"`
	Unanswered []Sample       `json:"unanswered_samples"`
	Unexpected []Sample       `json:"unexpected_error_samples"`
	Kills      map[string]int `json:"kills,omitempty"`
	Memory     []MemoryRow    `json:"memory"`
	Clients    []ClientExit   `json:"clients"`
	Processes  ProcessReport  `json:"processes"`
	Stderr     StderrSummary  `json:"agentlsp_stderr"`
	// Interrupted: the run was stopped by a signal or its deadline.
	Interrupted bool     `json:"interrupted"`
	Pass        bool     `json:"pass"`
	Failures    []string `json:"failures"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUs       int    `json:"cpus"`
	GoVersion  string `json:"go_version"`
	LoadBefore string `json:"loadavg_before"`
	LoadAfter  string `json:"loadavg_after"`
}

// Params are the run's effective parameters.
type Params struct {
	Clients      int      `json:"clients"`
	Concurrency  int      `json:"concurrency"`
	DurationS    float64  `json:"duration_s"`
	KillEveryS   float64  `json:"kill_every_s"`
	Kill         []string `json:"kill,omitempty"`
	MaxRestarts  int      `json:"max_restarts,omitempty"`
	WarmupS      float64  `json:"warmup_s"`
	SampleEveryS float64  `json:"sample_every_s"`
	CallTimeoutS float64  `json:"call_timeout_s"`
	EditDelayMs  float64  `json:"edit_delay_ms"`
	FlatMB       float64  `json:"flat_mb_per_min"`
	Seed         uint64   `json:"seed"`
	Gopls        string   `json:"gopls"`
	Pyright      string   `json:"pyright"`
}

func paramsOf(o *options) Params {
	return Params{Clients: o.clients, Concurrency: o.concurrency, DurationS: o.duration.Seconds(),
		KillEveryS: o.killEvery.Seconds(), Kill: killedKinds(o), MaxRestarts: o.maxRestarts, WarmupS: o.warmup.Seconds(), SampleEveryS: o.sampleEvery.Seconds(),
		CallTimeoutS: o.callTimeout.Seconds(), EditDelayMs: float64(o.editDelay.Microseconds()) / 1000,
		FlatMB: o.flatMB, Seed: o.seed, Gopls: o.gopls, Pyright: o.pyright}
}

// StartupResult is a client's first call (not counted in the load).
type StartupResult struct {
	Client   int      `json:"client"`
	Calls    int      `json:"calls"`
	Ms       float64  `json:"ms"`
	Statuses []string `json:"statuses,omitempty"`
	Error    string   `json:"error,omitempty"`
}

// OpResult is one operation on one language (lang/operation), or the
// total. Latency is of answered calls, in ms, nearest rank.
type OpResult struct {
	Op         string  `json:"operation"`
	Calls      int     `json:"calls"`
	OK         int     `json:"ok"`
	Wrong      int     `json:"wrong"`
	Unanswered int     `json:"unanswered"`
	NonFresh   int     `json:"non_fresh"`
	Flagged    int     `json:"flagged_incomplete"`
	Expected   int     `json:"expected_errors"`
	Unexpected int     `json:"unexpected_errors"`
	Cancelled  int     `json:"cancelled"`
	P50        float64 `json:"p50_ms"`
	P99        float64 `json:"p99_ms"`
	Max        float64 `json:"max_ms"`
}

// Sample is one call that was not right.
type Sample struct {
	Op      string  `json:"operation"`
	Client  int     `json:"client"`
	Worker  int     `json:"worker"`
	AtS     float64 `json:"at_s"`
	Ms      float64 `json:"ms"`
	File    string  `json:"file,omitempty"`
	OnDisk  string  `json:"on_disk,omitempty"`
	Answer  string  `json:"answer,omitempty"`
	Why     string  `json:"why"`
	ErrKind string  `json:"error_kind,omitempty"`
	// LastKill says, in --kill-every runs, when the client's server of
	// the call's language was last killed, relative to the call.
	LastKill string `json:"last_kill,omitempty"`
}

// ClientExit is how a client's agentlsp process ended when closed.
type ClientExit struct {
	Client int     `json:"client"`
	Pid    int     `json:"pid"`
	ExitMs float64 `json:"exit_ms"`
	Error  string  `json:"error,omitempty"`
}

// ProcessReport is the processes of the run: how many of each kind were
// seen (sampled, or killed), and those still alive after the grace period
// (killed then).
type ProcessReport struct {
	Seen map[string]int `json:"seen"`
	Left []string       `json:"left"`
	// TempLeft are the entries the children left in their TMPDIR (inside
	// the run's directory, removed with it): a SIGKILLed gopls leaves its
	// temporary module directories.
	TempLeft []string `json:"temp_left,omitempty"`
}

// StderrSummary is what the agentlsp processes logged.
type StderrSummary struct {
	ErrorLines int    `json:"error_lines"`
	WarnLines  int    `json:"warn_lines"`
	Panics     int    `json:"panics"`
	FirstError string `json:"first_error,omitempty"`
	FirstWarn  string `json:"first_warn,omitempty"`
	FirstPanic string `json:"first_panic,omitempty"`
}

// fill adds the calls' figures and the verdict.
func (rep *Report) fill(rec *recorder) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var all []float64
	rep.Total.Op = "total"
	for _, key := range sortedKeys(rec.ops) {
		s := rec.ops[key]
		r := opResult(key, s.counts, s.lat)
		rep.Ops = append(rep.Ops, r)
		all = append(all, s.lat...)
		rep.Total = sumOps(rep.Total, r)
	}
	lat := sortedCopy(all)
	rep.Total.P50, rep.Total.P99 = percentile(lat, 50), percentile(lat, 99)
	if len(lat) > 0 {
		rep.Total.Max = lat[len(lat)-1]
	}
	rep.ToolErrors, rep.NonFresh, rep.WrongKinds, rep.OtherFiles = rec.errKinds, rec.statuses, rec.wrongKinds, rec.others
	rep.Wrong = samplesOf(rec.samples[outcomeWrong])
	rep.Unanswered = samplesOf(rec.samples[outcomeUnanswered])
	rep.Unexpected = samplesOf(rec.samples[outcomeUnexpectedErr])
	rep.verdict()
}

func opResult(key string, c [outcomeCancelled + 1]int, lat []float64) OpResult {
	r := OpResult{Op: key, OK: c[outcomeOK], Wrong: c[outcomeWrong], Unanswered: c[outcomeUnanswered],
		NonFresh: c[outcomeNonFresh], Flagged: c[outcomeFlagged], Expected: c[outcomeExpectedErr],
		Unexpected: c[outcomeUnexpectedErr], Cancelled: c[outcomeCancelled]}
	for _, n := range c {
		r.Calls += n
	}
	sorted := sortedCopy(lat)
	r.P50, r.P99 = percentile(sorted, 50), percentile(sorted, 99)
	if len(sorted) > 0 {
		r.Max = sorted[len(sorted)-1]
	}
	return r
}

func sumOps(a, b OpResult) OpResult {
	a.Calls += b.Calls
	a.OK += b.OK
	a.Wrong += b.Wrong
	a.Unanswered += b.Unanswered
	a.NonFresh += b.NonFresh
	a.Flagged += b.Flagged
	a.Expected += b.Expected
	a.Unexpected += b.Unexpected
	a.Cancelled += b.Cancelled
	return a
}

func samplesOf(rs []result) []Sample {
	out := []Sample{}
	for _, r := range rs {
		out = append(out, Sample{Op: r.key, Client: r.client, Worker: r.worker, AtS: round2(r.at.Seconds()),
			Ms: round2(float64(r.d.Microseconds()) / 1000), File: r.file, OnDisk: r.onDisk, Answer: clip(r.answer, 600),
			Why: clip(r.why, 600), ErrKind: r.errKind, LastKill: r.lastKill})
	}
	return out
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// verdict sets Pass and Failures.
func (rep *Report) verdict() {
	t := rep.Total
	fail := func(cond bool, msg string) {
		if cond {
			rep.Failures = append(rep.Failures, msg)
		}
	}
	fail(t.Wrong > 0, plural(t.Wrong, "wrong answer"))
	fail(t.Unanswered > 0, plural(t.Unanswered, "unanswered call"))
	fail(t.Unexpected > 0, plural(t.Unexpected, "tool error")+" not explained by an injected fault")
	fail(len(rep.Processes.Left) > 0, plural(len(rep.Processes.Left), "process")+" left over")
	fail(t.Calls == 0, "no call made")
	fail(rep.Interrupted, "interrupted")
	rep.Pass = len(rep.Failures) == 0
	if rep.Failures == nil {
		rep.Failures = []string{}
	}
}

// writeJSON writes the report to path, or to stdout for "-".
func writeJSON(stdout interface{ Write([]byte) (int, error) }, path string, rep *Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "-" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// loadAvg is /proc/loadavg's first three fields.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// killedKinds is --kill when servers are killed.
func killedKinds(o *options) []string {
	if o.killEvery == 0 {
		return nil
	}
	return o.killKinds
}
