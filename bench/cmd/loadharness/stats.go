package main

import (
	"math"
	"slices"
	"time"

	"github.com/agentlsp/agentlsp/messages"
)

// The report: what one invocation measured, as JSON (field names are the
// format) and as markdown (report.go).

// Report is the whole run.
type Report struct {
	Machine   Machine    `json:"machine"`
	Args      []string   `json:"args"`
	Params    Params     `json:"params"`
	Scenarios []Scenario `json:"scenarios"`
	Checks    []Check    `json:"checks"`
	// HWMMB is this process's peak RSS over the whole run (VmHWM).
	HWMMB float64 `json:"hwm_mb"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUs      int     `json:"cpus"`
	CPUModel  string  `json:"cpu_model"`
	MemoryMB  float64 `json:"memory_mb"`
	GoVersion string  `json:"go_version"`
	OS        string  `json:"os"`
	Server    string  `json:"server_version,omitempty"`
}

// Params are the run's effective parameters.
type Params struct {
	Server       string   `json:"server"`
	Sessions     int      `json:"sessions"`
	Roots        int      `json:"roots"`
	Files        int      `json:"files"`
	Packages     int      `json:"packages,omitempty"`
	Module       string   `json:"module,omitempty"`
	Lines        int      `json:"lines"`
	OpsPerSess   int      `json:"ops_per_session"`
	NavsPerEdit  int      `json:"navs_per_edit"`
	SettleMs     float64  `json:"settle_ms"`
	SleepMs      float64  `json:"sleep_ms"`
	DiagTimeout  float64  `json:"diagnostics_timeout_ms"`
	PushDelayMs  float64  `json:"push_delay_ms,omitempty"`
	Modes        []string `json:"modes"`
	Variants     []string `json:"variants,omitempty"`
	SharedFiles  bool     `json:"shared_files"`
	SampleMillis float64  `json:"sample_interval_ms"`
	Repeat       int      `json:"repeat"`
}

// Scenario is one run of one server (and fake variant) with every mode
// side by side.
type Scenario struct {
	Name   string       `json:"name"`
	Run    int          `json:"run"`
	Modes  []ModeResult `json:"modes"`
	Ratios Ratios       `json:"ratios"`
}

// ModeResult is one mode's figures.
type ModeResult struct {
	Mode      string  `json:"mode"`
	Sessions  int     `json:"sessions"`
	Ops       int     `json:"ops"`
	Seconds   float64 `json:"seconds"`
	OpsPerSec float64 `json:"ops_per_sec"`
	// Edit is edit to fresh diagnostics (warm), Nav hover/definition,
	// Cold every session's first edit with no server running.
	Edit Latency `json:"edit"`
	Nav  Latency `json:"nav"`
	Cold Latency `json:"cold_edit"`
	// EditOverhead is Edit minus the policy wait (the settle window, or
	// the fixed sleep); set for push-only servers and the sleep client.
	EditOverhead *Latency `json:"edit_overhead,omitempty"`
	// EditsWithOtherFiles counts warm edits whose answer also named other
	// files with new errors. The workload's files are independent, so
	// those errors came from other sessions' edits made meanwhile.
	EditsWithOtherFiles int               `json:"edits_with_other_files"`
	Errors              map[string]int    `json:"errors"`
	ErrorSamples        map[string]string `json:"error_samples,omitempty"`
	// Memory: this process (sampled VmRSS; at mode start, and peak), its Go
	// heap, and the servers' process groups (sum, sampled).
	RSSStartMB      float64 `json:"rss_start_mb"`
	RSSPeakMB       float64 `json:"rss_peak_mb"`
	HeapPeakMB      float64 `json:"heap_peak_mb"`
	ServerRSSPeakMB float64 `json:"server_rss_peak_mb"`
	// Servers is how many server processes ran during the mode.
	Servers int `json:"servers"`
	// Goroutines: the process's peak, the client's (the code under test:
	// all minus the harness's own), and the client's after the load with
	// every session still alive.
	GoroutinesPeak       int `json:"goroutines_peak"`
	ClientGoroutinesPeak int `json:"client_goroutines_peak"`
	ClientGoroutinesIdle int `json:"client_goroutines_idle"`
	InFlightPeak         int `json:"inflight_peak"`
	// CPU seconds of this process and of the servers during the mode.
	CPUSeconds       float64 `json:"cpu_seconds"`
	ServerCPUSeconds float64 `json:"server_cpu_seconds"`
	ShutdownMs       float64 `json:"shutdown_ms"`
	// Barriers are the runtime's freshness barriers over the run (runtime
	// modes): how many were taken and their time in all, and the calls
	// that went at once.
	Barriers *messages.BarrierStats `json:"barriers,omitempty"`
}

// Ratios compare the modes of a scenario (0 when a mode did not run).
type Ratios struct {
	// ThroughputVsDirect is runtime ops/s over direct ops/s.
	ThroughputVsDirect float64 `json:"throughput_vs_direct"`
	// Added latency of the runtime over the direct client, in ms.
	EditAddedP50Ms float64 `json:"edit_added_p50_ms"`
	EditAddedP99Ms float64 `json:"edit_added_p99_ms"`
	NavAddedP50Ms  float64 `json:"nav_added_p50_ms"`
	NavAddedP99Ms  float64 `json:"nav_added_p99_ms"`
	// Per-session mode over shared mode.
	ServersPerSessionVsShared   float64 `json:"servers_per_session_vs_shared"`
	ServerRSSPerSessionVsShared float64 `json:"server_rss_per_session_vs_shared"`
	RSSPerSessionVsShared       float64 `json:"rss_per_session_vs_shared"`
	// Fixed-sleep client over the runtime: edit latency p50 and p99.
	SleepVsRuntimeEditP50 float64 `json:"sleep_vs_runtime_edit_p50"`
	SleepVsRuntimeEditP99 float64 `json:"sleep_vs_runtime_edit_p99"`
	// SleepStale is the fraction of the sleep client's answers that were
	// not about the edited version.
	SleepStale float64 `json:"sleep_stale_fraction"`
}

// Check is one target, met or not.
type Check struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	Value    string `json:"value"`
	Met      bool   `json:"met"`
}

// Latency summarizes durations, in milliseconds.
type Latency struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	Max   float64 `json:"max_ms"`
}

// summarize sorts ds and summarizes them (nearest-rank percentiles).
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	ms := func(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(ds)))) - 1
		return ds[max(0, min(i, len(ds)-1))]
	}
	return Latency{
		Count: len(ds), Mean: ms(sum / time.Duration(len(ds))),
		P50: ms(rank(0.50)), P95: ms(rank(0.95)), P99: ms(rank(0.99)), Max: ms(ds[len(ds)-1]),
	}
}

// minus returns ds each reduced by d (not below zero).
func minus(ds []time.Duration, d time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, x := range ds {
		out[i] = max(0, x-d)
	}
	return out
}

// ratio is a/b, 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round(a/b*1000) / 1000
}
