package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/actors/server/docs"
	"github.com/agentlsp/agentlsp/actors/server/pulls"
	"github.com/agentlsp/agentlsp/messages"
)

// Pull diagnostics (LSP 3.17 textDocument/diagnostic). When the server
// offers them, the actor pulls after every open and change (the pulls
// scheduler decides what), sends the pulls as calls through the call
// queue (so they count against the in-flight bound like any request), and
// publishes each document's combined result as one PublishedDiagnostics
// with Pulled set, describing the version it pulled for.

const pullMethod = "textDocument/diagnostic"

// pullIDBase starts the ids of the actor's own pull calls, far from the
// ids callers choose.
const pullIDBase = 1 << 62

// offersPull reports whether the server has a pull provider, as providers
// would list one, without building the list: it is asked for every
// version sent (DocumentSent.Pulls).
func (a *serverActor) offersPull() bool {
	if a.caps.tsserver || a.caps.pull != nil {
		return true
	}
	for _, r := range a.regs {
		if r.Method == pullMethod && parsePullProvider(r.RegisterOptions) != nil {
			return true
		}
	}
	return false
}

// providers lists the pull providers in force: the static one, then the
// dynamic registrations by id.
func (a *serverActor) providers() []pulls.Provider {
	if a.caps.tsserver {
		return tsserverProviders()
	}
	var out []pulls.Provider
	if a.caps.pull != nil {
		out = append(out, *a.caps.pull)
	}
	ids := make([]string, 0, len(a.regs))
	for id, r := range a.regs {
		if r.Method == pullMethod {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		if p := parsePullProvider(a.regs[id].RegisterOptions); p != nil {
			out = append(out, *p)
		}
	}
	return out
}

// pullDoc pulls one document (after an open, a re-open or a refresh).
func (a *serverActor) pullDoc(ctx actor.Context, d *docs.Document) {
	if a.running() {
		a.sendPulls(ctx, a.pulls.Pull(a.pullTarget(d), a.providers()))
	}
}

// pullAfterChange pulls a changed document and, with inter-file
// dependencies, other open documents.
func (a *serverActor) pullAfterChange(ctx actor.Context, d *docs.Document) {
	if !a.running() {
		return
	}
	others := func(yield func(pulls.Doc)) {
		a.st.docs.EachOpen(func(o *docs.Document) { yield(a.pullTarget(o)) })
	}
	a.sendPulls(ctx, a.pulls.PullChange(a.pullTarget(d), others, a.providers()))
}

// repull pulls the open document uri again instead of touching it, on a
// running server that is pulled, when anything was sent to the server
// since the document's current version: a pull is answered after every
// notification sent before it, so it describes those changes as the
// touch's pull would, without a new version of the same text for the
// server to analyse again (a check of 251 TypeScript files took 4.8 s
// without the touches, 10 s with them; pyright's 79 files 3.7 s against
// 7.8). The first re-pull after a change re-pulls other open documents
// too, as a change does, and holds the document's result until theirs are
// in (what the changes broke elsewhere); later ones, with nothing sent
// since, pull their document alone. It returns the server's view the pull
// is asked at: only a pull asked then or later describes the document.
func (a *serverActor) repull(ctx actor.Context, uri string) (uint64, bool) {
	d := a.st.docs.Get(uri)
	seq := a.st.docs.Seq()
	if d == nil || !d.Open || !a.running() || !a.offersPull() || d.SentSeq == seq {
		return 0, false
	}
	if a.repulledAt == seq {
		a.pullDoc(ctx, d)
	} else {
		a.repulledAt = seq
		a.pullAfterChange(ctx, d)
	}
	return seq, true
}

// pullTarget is d to pull now: its result will describe the server's view
// as it is (View), whatever version of d it is for.
func (a *serverActor) pullTarget(d *docs.Document) pulls.Doc {
	return pulls.Doc{URI: d.URI, Version: d.Version, Seq: d.SentSeq, View: a.st.docs.Seq()}
}

// sendPulls queues the pull calls, as many as flushPulls lets into the
// call queue, the rest in the backlog until earlier ones are
// answered; one the queue refuses, or beyond the backlog's bound, counts
// as failed, so its round still ends (and publishes nothing).
func (a *serverActor) sendPulls(ctx actor.Context, reqs []pulls.Request) {
	for i := range reqs {
		if len(a.pullBacklog) >= maxPullBacklog {
			a.onPullDone(ctx, &reqs[i], nil, a.serverError(messages.ErrOverloaded,
				fmt.Errorf("%d pulls for diagnostics waiting", len(a.pullBacklog)), nil))
			continue
		}
		a.pullBacklog = append(a.pullBacklog, reqs[i])
	}
	a.flushPulls(ctx)
	a.dispatchWaiting(ctx)
}

// maxPullBacklog bounds the actor's own pulls waiting for room in the call
// queue. They go to the queue while it has room for MaxInFlight other
// requests, agents' among them, and wait in the actor otherwise: 251
// TypeScript files opened at once asked for more pulls than the queue
// holds (64 in flight, 192 waiting), the queue refused the rest as
// overloaded, those rounds failed, and their files waited for a pull that
// never came while agents' requests found the queue full. A document has
// one round in flight at a time, so the bound is reached only with
// thousands of documents open.
const maxPullBacklog = 8192

// flushPulls moves pulls from the backlog to the call queue while it
// leaves room for MaxInFlight other requests; a pull for a document
// closed since is dropped (its round was forgotten with it).
func (a *serverActor) flushPulls(ctx actor.Context) {
	limit := max(1, (waitingFactor-1)*a.lim.MaxInFlight)
	for len(a.pullBacklog) > 0 && a.pullsQueued < limit {
		r := a.pullBacklog[0]
		if !a.st.docs.IsOpen(r.URI) {
			a.popPull()
			continue
		}
		a.nextPull++
		err := a.enqueue(pullIDBase+a.nextPull, a.lim.RequestTimeout, &pending{pull: &r})
		if errors.Is(err, messages.ErrOverloaded) {
			return // the queue is full of agents' requests: the next answer makes room
		}
		a.popPull()
		if err != nil {
			a.onPullDone(ctx, &r, nil, err)
			continue
		}
		a.pullsQueued++
	}
}

// popPull drops the backlog's first pull.
func (a *serverActor) popPull() {
	a.pullBacklog[0] = pulls.Request{}
	if a.pullBacklog = a.pullBacklog[1:]; len(a.pullBacklog) == 0 {
		a.pullBacklog = nil // let the array go
	}
}

// dropPulls forgets the pulls queued and waiting: the calls were drained
// for a restart or a stop, and a new process pulls every document again.
func (a *serverActor) dropPulls() {
	a.pullBacklog, a.pullsQueued = nil, 0
}

func pullParams(r *pulls.Request) any {
	return pullRequest{TextDocument: textDocumentID{URI: r.URI}, Identifier: r.Identifier, PreviousResultID: r.PreviousResultID}
}

// pullRequest are textDocument/diagnostic's params.
type pullRequest struct {
	TextDocument     textDocumentID `json:"textDocument"`
	Identifier       string         `json:"identifier,omitempty"`
	PreviousResultID string         `json:"previousResultId,omitempty"`
}

// textDocumentID names a document in a request's params.
type textDocumentID struct {
	URI string `json:"uri"`
}

// onPullDone records one pull's answer and publishes what it completes.
func (a *serverActor) onPullDone(ctx actor.Context, r *pulls.Request, result json.RawMessage, err error) {
	rep := pulls.Report{Failed: err != nil}
	if err != nil {
		a.cfg.Logger.Debug("pull diagnostics failed", "server", a.cfg.Server.ID, "uri", r.URI, "err", err)
	} else if rep, err = a.parsePulled(result); err != nil {
		a.cfg.Logger.Warn("malformed pull diagnostics report", "server", a.cfg.Server.ID, "err", err)
		rep.Failed = true
	}
	publish, next := a.pulls.Done(r.URI, r.Version, r.Identifier, rep, a.providers())
	a.publishPulled(ctx, publish)
	if len(next) > 0 && a.st.docs.IsOpen(r.URI) {
		a.sendPulls(ctx, next)
	}
	a.answerPulledWaiters(ctx)
}

func (a *serverActor) publishPulled(ctx actor.Context, results []pulls.Result) {
	for _, res := range results {
		a.tellObservers(ctx, &messages.PublishedDiagnostics{
			ServerID: a.cfg.Server.ID, Root: a.cfg.Root, URI: res.URI, Version: res.Version, HasVersion: true,
			Incarnation: a.st.gen, Pulled: true, Diagnostics: res.Diagnostics, View: res.View,
		})
	}
}

// parsePulled reads a pull's answer: tsserver's in tsserver mode.
func (a *serverActor) parsePulled(raw json.RawMessage) (pulls.Report, error) {
	if a.caps.tsserver {
		return parseTSServerReport(raw)
	}
	return parseReport(raw)
}

// parseReport reads a full or unchanged document diagnostic report.
func parseReport(raw json.RawMessage) (pulls.Report, error) {
	var r struct {
		Kind     string           `json:"kind"`
		ResultID string           `json:"resultId"`
		Items    []wireDiagnostic `json:"items"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return pulls.Report{}, err
	}
	return pulls.Report{Kind: r.Kind, ResultID: r.ResultID, Items: diagnosticsOf(r.Items)}, nil
}

// onRefresh answers workspace/diagnostic/refresh: pull every open document.
func (a *serverActor) onRefresh(ctx actor.Context) {
	for _, d := range a.st.docs.OpenDocuments() {
		a.pullDoc(ctx, d)
	}
}
