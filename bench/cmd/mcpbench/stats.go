package main

import (
	"math"
	"slices"
	"time"
)

// The report: what one run measured. The JSON field names are the format.

// Report is the whole run.
type Report struct {
	Machine Machine    `json:"machine"`
	Args    []string   `json:"args"`
	Params  Params     `json:"params"`
	Target  target     `json:"target"`
	Ops     []OpResult `json:"operations,omitempty"`
	// Floor is the MCP protocol's own round trip, a ping: the SDK's client
	// and server and the stdio pipes, no tool (nav phase).
	Floor *Side        `json:"mcp_floor,omitempty"`
	Edit  *EditResult  `json:"edit,omitempty"`
	Cold  *ColdResult  `json:"cold,omitempty"`
	Check *CheckResult `json:"check,omitempty"`
	Peers *PeersResult `json:"peers,omitempty"`
	// Memory is the peak resident memory of each warm client's processes.
	Memory *MemoryResult `json:"memory,omitempty"`
	// ElapsedS is the run's wall time.
	ElapsedS float64 `json:"elapsed_s"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model"`
	GoVersion string `json:"go_version"`
	Gopls     string `json:"gopls"`
	Agentlsp  string `json:"agentlsp"`
}

// Params are the run's effective parameters.
type Params struct {
	Workspace string `json:"workspace"` // "generated" or the directory
	Files     int    `json:"files,omitempty"`
	Calls     int    `json:"calls"`
	Warmup    int    `json:"warmup"`
	Edits     int    `json:"edits"`
	// EditDelayMs is the MCP client's wait between a write and its call.
	EditDelayMs float64 `json:"edit_delay_ms"`
	// Edited says whether the edited file is open in both clients.
	Edited    string   `json:"edited"`
	Cold      int      `json:"cold"`
	CheckRuns int      `json:"check_runs"`
	MCPArgs   []string `json:"mcp_args,omitempty"`
	Client    string   `json:"client"` // the MCP client: sdk or lean
	CheckArgs []string `json:"check_args,omitempty"`
	Baseline  string   `json:"baseline,omitempty"` // the --baseline agentlsp binary
}

// Latency summarizes answered calls, in milliseconds (nearest rank).
type Latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	Mean  float64 `json:"mean_ms"`
	Max   float64 `json:"max_ms"`
}

// OpResult is one operation, raw and through MCP.
type OpResult struct {
	Op  string `json:"operation"`
	Raw Side   `json:"raw"`
	MCP Side   `json:"mcp"`
	// OverheadP50 is MCP p50 minus raw p50, in ms.
	OverheadP50 float64 `json:"overhead_p50_ms"`
	// Relayed is raw gopls through lsprelay (--relay), and
	// RelayOverheadP50 its p50 minus raw p50: the floor of any process
	// between a client and gopls.
	Relayed          *Side   `json:"relayed,omitempty"`
	RelayOverheadP50 float64 `json:"relay_overhead_p50_ms,omitempty"`
	// Own is each MCP call less the time its own gopls took (agentlsp
	// reports it in the answer's _meta): what agentlsp and MCP add to a
	// round trip to the same server, free of the difference between two
	// gopls processes. Server is that gopls time.
	Own    Latency `json:"own"`
	Server Latency `json:"server"`
	// CPU is the processes' CPU time per call, warm-up included (nil
	// where /proc cannot tell).
	CPU *CallCPU `json:"cpu_per_call,omitempty"`
	// Baseline is the --baseline build's side, nil without one.
	Baseline *BaselineResult `json:"baseline,omitempty"`
}

// Side is one client's calls: latency of those that answered (right or
// wrong), of those that answered right, how many answers were right of
// how many calls, and the first failure.
type Side struct {
	Latency
	Right   Latency `json:"right"`
	Calls   int     `json:"calls"`
	Correct int     `json:"correct"`
	Error   string  `json:"first_error,omitempty"`
}

// EditResult is edit on disk to fresh diagnostics.
type EditResult struct {
	Raw Side `json:"raw"`
	// RawDone is the raw client's time to the end of gopls's diagnosis of
	// the change: every finding published, what agentlsp waits for.
	RawDone Side `json:"raw_diagnosis_end"`
	MCP     Side `json:"mcp"`
}

// ColdResult is process start to the first correct goToDefinition.
type ColdResult struct {
	Raw   Side      `json:"raw"`
	MCP   Side      `json:"mcp"`
	RawMs []float64 `json:"raw_ms"`
	MCPMs []float64 `json:"mcp_ms"`
	// Ratio is MCP median over raw median.
	Ratio float64 `json:"ratio"`
}

// MemoryResult is the peak resident memory (VmHWM, MiB) of the warm
// clients' processes, read when their phases ended: raw gopls, and
// agentlsp with its gopls.
type MemoryResult struct {
	RawGopls    float64 `json:"raw_gopls_mib"`
	Agentlsp    float64 `json:"agentlsp_mib"`
	AgentlspLSP float64 `json:"agentlsp_gopls_mib"`
}

// CheckResult is `agentlsp check` against `gopls check` on a broken file.
type CheckResult struct {
	File       string    `json:"file"`
	Agentlsp   Side      `json:"agentlsp"`
	Gopls      Side      `json:"gopls"`
	AgentlspMs []float64 `json:"agentlsp_ms"`
	GoplsMs    []float64 `json:"gopls_ms"`
	// Ratio is agentlsp's median wall time over gopls's.
	Ratio float64 `json:"ratio"`
}

// sample collects one client's calls.
type sample struct {
	ds      []time.Duration // answered
	right   []time.Duration // answered right
	calls   int
	correct int
	err     string
}

// add records a call: answered (right or wrong) calls count for latency.
func (s *sample) add(d time.Duration, err error) {
	s.calls++
	if err == nil || isWrong(err) {
		s.ds = append(s.ds, d)
	}
	if err == nil {
		s.correct++
		s.right = append(s.right, d)
	} else if s.err == "" {
		s.err = err.Error()
	}
}

// side summarizes the sample.
func (s *sample) side() Side {
	return Side{Latency: summarize(s.ds), Right: summarize(s.right), Calls: s.calls, Correct: s.correct, Error: s.err}
}

// ms returns the durations in milliseconds.
func (s *sample) ms() []float64 {
	out := make([]float64, len(s.ds))
	for i, d := range s.ds {
		out[i] = round2(msOf(d))
	}
	return out
}

// summarize computes nearest-rank percentiles.
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Latency{Count: len(s), P50: round2(msOf(rank(50))), P99: round2(msOf(rank(99))),
		Mean: round2(msOf(sum / time.Duration(len(s)))), Max: round2(msOf(s[len(s)-1]))}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// round2 rounds to 2 decimals, for the report.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// ratio is a/b rounded, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return round2(a / b)
}
