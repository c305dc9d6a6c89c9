package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentlsp/agentlsp/messages"
)

// ErrNoResult: no server that serves the file could answer.
var ErrNoResult = errors.New("agentlsp: no server answered")

// Answer says who answered a navigation request and how much to trust it.
type Answer struct {
	// Servers that answered.
	Servers []string `json:"servers"`
	// Indexing: a server was still starting or indexing; results may be
	// incomplete (ask again later).
	Indexing bool `json:"indexing,omitempty"`
	// Errors of servers that failed while others answered.
	Errors []string `json:"errors,omitempty"`
	// Starting lists the servers that were asked but were still starting
	// when the answer was due (workspace symbols).
	Starting []string `json:"starting,omitempty"`
	// Unwatched lists the files of the answer (absolute paths, each once)
	// that lie in directories the runtime's file watcher does not look
	// into (node_modules, vendor, .venv, a build's output: paths.Filter):
	// a change made there since the server read them is not seen, and the
	// answer may describe them as they were.
	Unwatched []string `json:"unwatched,omitempty"`
	// ServerTime is how long the servers themselves took: the longest of
	// their round trips (they are asked at once), from a request handed to
	// a server's connection to its answer read back. The rest of a call's
	// time is agentlsp's.
	ServerTime time.Duration `json:"-"`
}

// LocationsAnswer answers definition, references and implementation.
type LocationsAnswer struct {
	Answer
	Locations []Location `json:"locations"`
}

// HoverAnswer answers hover; Hover is nil when there is nothing to show.
type HoverAnswer struct {
	Answer
	Hover *Hover `json:"hover"`
}

// SymbolsAnswer answers document and workspace symbols.
type SymbolsAnswer struct {
	Answer
	Symbols []Symbol `json:"symbols"`
}

// CallItemsAnswer answers prepareCallHierarchy.
type CallItemsAnswer struct {
	Answer
	Items []CallItem `json:"items"`
}

// CallsAnswer answers incoming and outgoing calls.
type CallsAnswer struct {
	Answer
	Calls []Call `json:"calls"`
}

// Split keeps the successful results of a router answer and sums them up
// in an Answer; it fails only when no server answered (ErrNoResult, with
// every server's error).
func Split(fr *messages.FileResponse) ([]messages.ServerResult, Answer, error) {
	if fr.Err != nil {
		return nil, Answer{}, fr.Err
	}
	var ok []messages.ServerResult
	var ans Answer
	var errs []error
	for _, r := range fr.Results {
		ans.Indexing = ans.Indexing || r.Indexing
		ans.ServerTime = max(ans.ServerTime, r.Took)
		if r.Starting {
			ans.Starting = append(ans.Starting, r.ServerID)
			continue
		}
		if r.Err != nil {
			errs = append(errs, r.Err)
			ans.Errors = append(ans.Errors, r.Err.Error())
			continue
		}
		ok = append(ok, r)
		ans.Servers = append(ans.Servers, r.ServerID)
	}
	if len(ok) == 0 && len(ans.Starting) == 0 {
		return nil, ans, fmt.Errorf("%w: %w", ErrNoResult, errors.Join(errs...))
	}
	return ok, ans, nil
}

// Collect parses every server's result and concatenates them; a result
// that does not parse becomes one of the answer's errors.
func Collect[T any](rs []messages.ServerResult, ans *Answer, parse func(json.RawMessage) ([]T, error)) []T {
	out := []T{}
	for _, r := range rs {
		items, err := parse(r.Result)
		if err != nil {
			ans.Errors = append(ans.Errors, r.ServerID+": "+err.Error())
			continue
		}
		out = append(out, items...)
	}
	return out
}

// Locations parses and merges location results, each location once
// (several servers may give the same).
func Locations(rs []messages.ServerResult, ans Answer) *LocationsAnswer {
	out := &LocationsAnswer{Answer: ans, Locations: []Location{}}
	seen := map[Location]bool{}
	for _, l := range Collect(rs, &out.Answer, ParseLocations) {
		if !seen[l] {
			seen[l] = true
			out.Locations = append(out.Locations, l)
		}
	}
	return out
}

// Hovers parses and joins hover results (a blank line between servers').
func Hovers(rs []messages.ServerResult, ans Answer) *HoverAnswer {
	out := &HoverAnswer{Answer: ans}
	for _, r := range rs {
		h, err := ParseHover(r.Result)
		switch {
		case err != nil:
			out.Errors = append(out.Errors, r.ServerID+": "+err.Error())
		case h == nil:
		case out.Hover == nil:
			out.Hover = h
		default:
			out.Hover.Text += "\n\n" + h.Text
		}
	}
	return out
}
