package main

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"
	"time"
)

// outcome is how one call ended.
type outcome int

const (
	// outcomeOK: the answer is right (for an unsupported operation: the
	// tool error saying so).
	outcomeOK outcome = iota
	// outcomeWrong: the answer contradicts what is known, or lacks part
	// of it without saying it may be incomplete.
	outcomeWrong
	// outcomeUnanswered: no answer within the call timeout, or the
	// connection failed.
	outcomeUnanswered
	// outcomeNonFresh: diagnostics with a status other than fresh.
	outcomeNonFresh
	// outcomeFlagged: an incomplete answer that says so (indexing, or a
	// server's error beside another's answer).
	outcomeFlagged
	// outcomeExpectedErr: a tool error explained by the injected fault
	// (a crash or a broken server, in --kill-every runs).
	outcomeExpectedErr
	// outcomeUnexpectedErr: any other tool error.
	outcomeUnexpectedErr
	// outcomeCancelled: the run was interrupted during the call.
	outcomeCancelled
)

// result is one call.
type result struct {
	key     string // lang/operation
	client  int
	worker  int
	at      time.Duration // since the run began, when the call ended
	d       time.Duration // latency
	outcome outcome
	file    string // the file asked about
	onDisk  string // edits: what was on disk
	answer  string // what the answer said, in short
	status  string // non-fresh status, or "incomplete"
	errKind string // tool errors: the kind (errorKind)
	why     string // why it is wrong, unanswered or an error
	// wrongKind groups wrong answers by cause, when known.
	wrongKind string
	// lastKill says when the server of the call's language was last
	// killed, relative to the call (--kill-every runs).
	lastKill string
	// others counts a diagnostics answer's other files (edits.go).
	others otherFiles
}

func (r result) with(o outcome, why string) result {
	r.outcome, r.why = o, why
	return r
}

// answered reports whether the call got an answer (right or not).
func (r result) answered() bool {
	return r.outcome != outcomeUnanswered && r.outcome != outcomeCancelled
}

// maxSamples bounds the wrong, unanswered and error calls kept in full
// (in the JSON report; the text shows --show of them).
const maxSamples = 200

// recorder collects results; safe for concurrent use.
type recorder struct {
	began time.Time
	// killer, when servers are killed, dates failures against the kills;
	// set before the first add.
	killer *killer
	mu     sync.Mutex
	ops    map[string]*opStats
	// samples of failures, at most maxSamples of each outcome.
	samples map[outcome][]result
	// errKinds counts tool errors by kind, statuses non-fresh statuses,
	// wrongKinds wrong answers by cause.
	errKinds, statuses, wrongKinds map[string]int
	others                         otherFiles
}

func newRecorder() *recorder {
	return &recorder{began: time.Now(), ops: map[string]*opStats{}, samples: map[outcome][]result{},
		errKinds: map[string]int{}, statuses: map[string]int{}, wrongKinds: map[string]int{}}
}

type opStats struct {
	counts [outcomeCancelled + 1]int
	lat    []float64 // ms, answered calls
}

// add records r.
func (rc *recorder) add(r result) {
	r.at = time.Since(rc.began)
	if rc.killer != nil && r.outcome != outcomeOK {
		var class string
		r.lastKill, class = rc.killer.relation(r)
		if r.outcome == outcomeWrong {
			r.wrongKind = cmp.Or(r.wrongKind, r.key+": other") + " (" + class + ")"
		}
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := rc.ops[r.key]
	if s == nil {
		s = &opStats{}
		rc.ops[r.key] = s
	}
	s.counts[r.outcome]++
	rc.others.add(r.others)
	if r.answered() {
		s.lat = append(s.lat, float64(r.d.Microseconds())/1000)
	}
	if r.errKind != "" {
		rc.errKinds[r.errKind]++
	}
	if r.status != "" {
		rc.statuses[r.status]++
	}
	if r.outcome == outcomeWrong {
		rc.wrongKinds[cmp.Or(r.wrongKind, r.key+": other")]++
	}
	if r.outcome != outcomeOK && len(rc.samples[r.outcome]) < maxSamples {
		rc.samples[r.outcome] = append(rc.samples[r.outcome], r)
	}
}

// percentile returns the p-th percentile (nearest rank) of sorted xs.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// slope returns the least-squares slope of ys against xs, or 0 with
// fewer than two distinct xs.
func slope(xs, ys []float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
		sxx += xs[i] * xs[i]
		sxy += xs[i] * ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / den
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func sortedCopy(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}
