package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"
)

// writeText writes the report as markdown, showing up to show samples of
// wrong, unanswered and unexpected calls each.
func writeText(w io.Writer, rep *Report, show int) {
	p := rep.Params
	fmt.Fprintf(w, "## mcpload: %d clients x %d concurrent calls, %.0f s", p.Clients, p.Concurrency, p.DurationS)
	if p.KillEveryS > 0 {
		fmt.Fprintf(w, ", a language server SIGKILLed every %g s (%s)", p.KillEveryS, counts(rep.Kills))
	}
	if p.MaxRestarts > 0 {
		fmt.Fprintf(w, ", crash budget %d", p.MaxRestarts)
	}
	fmt.Fprintf(w, "\n\n%d CPUs, %s; load average %s before the calls, %s after; edit delay %g ms; call timeout %g s; seed %d\n\n",
		rep.Machine.CPUs, rep.Machine.GoVersion, rep.Machine.LoadBefore, rep.Machine.LoadAfter, p.EditDelayMs, p.CallTimeoutS, p.Seed)
	fmt.Fprintln(w, "| operation | calls | p50 ms | p99 ms | max ms | ok | wrong | unanswered | non-fresh | flagged incomplete | expected errors | other errors |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, o := range append(rep.Ops, rep.Total) {
		name := o.Op
		if o.Op == "total" {
			name = "**total**"
		}
		fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d | %d | %d |\n", name, o.Calls, o.P50, o.P99, o.Max,
			o.OK, o.Wrong, o.Unanswered, o.NonFresh, o.Flagged, o.Expected, o.Unexpected)
	}
	fmt.Fprintf(w, "\nTool errors by kind: %s (unsupported: pyright's refusal of goToImplementation, the right answer).\n", counts(rep.ToolErrors))
	fmt.Fprintf(w, "Non-fresh diagnostics and flagged answers by status: %s.\n", counts(rep.NonFresh))
	of := rep.OtherFiles
	fmt.Fprintf(w, "Other files in diagnostics answers (not named; new errors): presented as only the named file's change's: "+
		"%d written by the asking worker, %d by another worker of its client (the same agentlsp session), "+
		"%d by another client's (another agent's breakage as the caller's); %d with the other changes that could have made them named.\n",
		of.Own, of.SameSession, of.Others, of.Attributed)
	if rep.Total.Cancelled > 0 {
		fmt.Fprintf(w, "Calls cancelled by the interruption: %d.\n", rep.Total.Cancelled)
	}
	if len(rep.WrongKinds) > 0 {
		fmt.Fprintf(w, "\nWrong answers by cause:\n\n")
		for _, k := range sortedKeys(rep.WrongKinds) {
			fmt.Fprintf(w, "- %s: %d\n", k, rep.WrongKinds[k])
		}
	}
	writeMemory(w, rep)
	writeProcesses(w, rep)
	writeSamples(w, "Wrong answers", rep.Wrong, rep.Total.Wrong, show)
	writeSamples(w, "Unanswered calls", rep.Unanswered, rep.Total.Unanswered, show)
	writeSamples(w, "Tool errors not explained by a fault", rep.Unexpected, rep.Total.Unexpected, show)
	if rep.Pass {
		fmt.Fprintf(w, "\n**PASS**: every call answered, none wrong, no process left.\n")
	} else {
		fmt.Fprintf(w, "\n**FAIL**: %s.\n", strings.Join(rep.Failures, "; "))
	}
}

func writeMemory(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "\nMemory after a %g s warm-up, sampled every %g s from /proc (per process: the mean over the kind's processes; "+
		"threads are OS threads; goroutines from agentlsp's own --stats lines; flat: |slope| <= %g MB/min, for agentlsp also each process's, "+
		"and goroutines |slope| <= %d/min):\n\n",
		rep.Params.WarmupS, rep.Params.SampleEveryS, rep.Params.FlatMB, maxGoroutineSlope)
	fmt.Fprintln(w, "| process | at once | samples | RSS first MB | RSS last MB | slope MB/min | last half MB/min | steepest process MB/min | threads first | threads last | threads/min | goroutines first | goroutines last | goroutines/min | flat |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range rep.Memory {
		steep, gor := "-", "- | - | -"
		if m.Kind == "agentlsp" {
			steep = fmt.Sprintf("%+.2f", m.MaxProcessSlope)
			gor = fmt.Sprintf("%.1f | %.1f | %+.2f", m.GoroutinesFirst, m.GoroutinesLast, m.GoroutinesSlope)
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.1f | %.1f | %+.2f | %+.2f | %s | %.1f | %.1f | %+.2f | %s | %s |\n", m.Kind, m.Processes, m.Samples,
			m.RSSFirstMB, m.RSSLastMB, m.SlopeMBPerMin, m.LastHalfSlope, steep, m.ThreadsFirst, m.ThreadsLast, m.ThreadsSlope, gor, cmp.Or(m.Note, yesNo(m.Flat)))
	}
}

func writeProcesses(w io.Writer, rep *Report) {
	fmt.Fprintf(w, "\nProcesses seen: %s. ", counts(rep.Processes.Seen))
	var exits []string
	for _, c := range rep.Clients {
		e := fmt.Sprintf("%.0f ms", c.ExitMs)
		if c.Error != "" {
			e += " (" + c.Error + ")"
		}
		exits = append(exits, e)
	}
	fmt.Fprintf(w, "Clients closed (stdin closed, exit awaited): %s. ", strings.Join(exits, ", "))
	if len(rep.Processes.Left) == 0 {
		fmt.Fprintln(w, "Left over after the grace period: none.")
	} else {
		fmt.Fprintf(w, "Left over after the grace period (killed): %s.\n", strings.Join(rep.Processes.Left, "; "))
	}
	if n := len(rep.Processes.TempLeft); n > 0 {
		fmt.Fprintf(w, "The servers left %d entries in their TMPDIR (removed with the run's directory), e.g. %s.\n", n, rep.Processes.TempLeft[0])
	}
	s := rep.Stderr
	fmt.Fprintf(w, "agentlsp stderr: %d ERROR lines, %d WARN lines, %d panics.", s.ErrorLines, s.WarnLines, s.Panics)
	if s.FirstError != "" {
		fmt.Fprintf(w, " First error: `%s`", clip(s.FirstError, 300))
	}
	if s.FirstWarn != "" {
		fmt.Fprintf(w, " First warning: `%s`", clip(s.FirstWarn, 300))
	}
	if s.FirstPanic != "" {
		fmt.Fprintf(w, " First panic: `%s`", s.FirstPanic)
	}
	fmt.Fprintln(w)
}

func writeSamples(w io.Writer, title string, ss []Sample, total, show int) {
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d; the first %d):\n\n", title, total, min(show, len(ss)))
	for _, s := range ss[:min(show, len(ss))] {
		fmt.Fprintf(w, "- %s, client %d worker %d, at %.1f s, %.0f ms", s.Op, s.Client, s.Worker, s.AtS, s.Ms)
		if s.File != "" && s.File != "<nil>" {
			fmt.Fprintf(w, ", %s", s.File)
		}
		if s.OnDisk != "" {
			fmt.Fprintf(w, "; on disk: %s", s.OnDisk)
		}
		fmt.Fprintf(w, "; %s", s.Why)
		if s.LastKill != "" {
			fmt.Fprintf(w, "; %s", s.LastKill)
		}
		if s.Answer != "" && !strings.Contains(s.Why, s.Answer) {
			fmt.Fprintf(w, "; answer: %s", s.Answer)
		}
		fmt.Fprintln(w)
	}
}

// counts renders a count map as "a 1, b 2", or "none".
func counts(m map[string]int) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

// plural renders a count and a noun.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
