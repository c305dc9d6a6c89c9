package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// A baseline (--baseline PATH) is a second agentlsp build in the nav
// phase: its own copy of the workspace and its own gopls, its calls
// interleaved with the other clients' call by call. Two builds compared
// in separate runs differ by more than most changes do on a shared
// machine (the same build's added p50 moved by 0.2 ms between runs); call
// by call, each pair meets the same moment's machine, and each call less
// its own gopls's time leaves out the two gopls processes' difference.

// BaselineResult is the baseline build's side of one operation.
type BaselineResult struct {
	MCP Side `json:"mcp"`
	// Own is each call less its gopls's time, as OpResult.Own.
	Own Latency `json:"own"`
	// Diff is the measured build's own time less the baseline's, call by
	// call (rounds where both answered right).
	Diff PairedDiff `json:"own_difference"`
	// CPU is the baseline's CPU per call (RawGopls is not set).
	CPU *CallCPU `json:"cpu_per_call,omitempty"`
}

// PairedDiff is the median of paired differences (ms) with its 95 %
// confidence interval: order statistics of the sorted differences, which
// assume nothing of their distribution but that pairs are independent.
type PairedDiff struct {
	Pairs int     `json:"pairs"`
	P50   float64 `json:"p50_ms"`
	Lo    float64 `json:"ci95_low_ms"`
	Hi    float64 `json:"ci95_high_ms"`
}

// pairedMedian summarizes paired differences.
func pairedMedian(ds []time.Duration) PairedDiff {
	n := len(ds)
	if n == 0 {
		return PairedDiff{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	// The ranks (1-based) n/2 - 1.96·√n/2 and 1 + n/2 + 1.96·√n/2 bound
	// the median with 95 % confidence (the normal approximation of the
	// binomial), rounded outwards.
	half := 1.96 * math.Sqrt(float64(n)) / 2
	lo := max(1, int(math.Floor(float64(n)/2-half)))
	hi := min(n, int(math.Ceil(float64(n)/2+half+1)))
	return PairedDiff{Pairs: n, P50: round3(msOf(s[(n-1)/2])), Lo: round3(msOf(s[lo-1])), Hi: round3(msOf(s[hi-1]))}
}

// round3 rounds to 3 decimals: a difference of tens of microseconds.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// writeBaseline writes the baseline's table.
func writeBaseline(b *strings.Builder, ops []OpResult, path string) {
	if len(ops) == 0 || ops[0].Baseline == nil {
		return
	}
	fmt.Fprintf(b, "\nAgainst the baseline build %s, its calls interleaved with the others' in the same run: "+
		"each call less its own gopls's time (ms), and the difference call by call, this build less the baseline, "+
		"with its 95 %% confidence interval; CPU per call in µs.\n\n", path)
	b.WriteString("| operation | added p50 | baseline's added p50 | difference p50 [95% CI] | pairs | CPU per call | baseline's CPU per call |\n|---|---|---|---|---|---|---|\n")
	for _, o := range ops {
		bl := o.Baseline
		if bl == nil {
			continue
		}
		cpu, baseCPU := "n/a", "n/a"
		if o.CPU != nil && bl.CPU != nil {
			cpu, baseCPU = fmt.Sprintf("%.1f", o.CPU.Agentlsp), fmt.Sprintf("%.1f", bl.CPU.Agentlsp)
		}
		fmt.Fprintf(b, "| %s | %+.2f | %+.2f | %+.3f [%+.3f, %+.3f] | %d | %s | %s |\n", o.Op, o.Own.P50, bl.Own.P50,
			bl.Diff.P50, bl.Diff.Lo, bl.Diff.Hi, bl.Diff.Pairs, cpu, baseCPU)
	}
}
