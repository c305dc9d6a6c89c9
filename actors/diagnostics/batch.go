package diagnostics

import (
	"slices"
	"sort"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/paths"
)

// answeredAfter reports whether an answer to the session after at was for
// the file uri: a change to it before then was the session's to see.
func (s *session) answeredAfter(uri string, at time.Time) bool {
	t, ok := s.answered.Peek(uri)
	return ok && t.After(at)
}

// noteAnswer remembers an answer for the files named.
func (s *session) noteAnswer(at time.Time, named ...string) {
	for _, u := range named {
		s.answered.Add(u, at)
	}
}

// session is one agent session's state: what was delivered to it (an LRU
// of files, each with the keys delivered), and its passive subscription.
// A subscriber gets one batch at a time: the next only after it acks, so
// nothing grows while it is slow; documents that change meanwhile stay
// marked dirty and the next batch takes their newest state.
type session struct {
	delivered  *dedup.Delivered
	subscriber *actor.PID
	unacked    bool
	dirty      map[string]bool
	// answeredSeq is the store's write count at the session's last answer
	// (0 before the first).
	answeredSeq uint64
	answeredAt  time.Time // when (zero before the first)
	// answered says when an answer to the session was last for a file (a
	// diagnostics call's named files, an edit's file; at most MaxFiles).
	answered *lru.Cache[string, time.Time]
	// The subscription's filter: files under prefixes, and (own) only the
	// files the session edited or asked about (at most MaxFiles kept).
	prefixes []string
	own      bool
	mine     *lru.Cache[string, struct{}]
}

// wants reports whether the session's subscription covers uri.
func (s *session) wants(uri string) bool {
	if s.own && !s.mine.Contains(uri) {
		return false
	}
	if len(s.prefixes) == 0 {
		return true
	}
	p := paths.FromURI(uri)
	return slices.ContainsFunc(s.prefixes, func(prefix string) bool { return paths.Within(prefix, p) })
}

type flushBatches struct{}

func (a *diagnosticsActor) session(id string) *session {
	s, ok := a.sessions[id]
	if !ok {
		if len(a.sessions) >= maxSessions {
			a.evictSession()
		}
		mine, _ := lru.New[string, struct{}](a.cfg.MaxFiles)
		answered, _ := lru.New[string, time.Time](a.cfg.MaxFiles)
		s = &session{delivered: dedup.NewDelivered(a.cfg.MaxFiles), dirty: make(map[string]bool), mine: mine, answered: answered}
		a.sessions[id] = s
	}
	return s
}

// evictSession drops a session without a subscriber, to bound memory.
func (a *diagnosticsActor) evictSession() {
	for id, s := range a.sessions {
		if s.subscriber == nil {
			delete(a.sessions, id)
			return
		}
	}
}

func (a *diagnosticsActor) onSubscribe(ctx actor.Context, m *messages.Subscribe) {
	if ctx.Sender() == nil {
		a.cfg.Logger.Warn("Subscribe sent without a sender: send it with Request, the batches go to the sender",
			"session", m.Session)
		return
	}
	s := a.session(m.Session)
	s.subscriber, s.unacked = ctx.Sender(), false
	a.subscribed[m.Session] = s
	s.prefixes, s.own = append([]string(nil), m.Prefixes...), m.Own
	// Everything known now is new to a new subscriber.
	for _, uri := range a.store.URIs() {
		if s.wants(uri) {
			s.dirty[uri] = true
		}
	}
	a.scheduleFlush()
}

func (a *diagnosticsActor) onAck(m *messages.BatchAck) {
	if s, ok := a.sessions[m.Session]; ok {
		s.unacked = false
		if len(s.dirty) > 0 {
			a.scheduleFlush()
		}
	}
}

// markDirty notes a document changed for every subscribed session.
func (a *diagnosticsActor) markDirty(uri string) {
	subscribed := false
	for _, s := range a.subscribed {
		if s.wants(uri) {
			s.dirty[uri] = true
			subscribed = true
		}
	}
	if subscribed {
		a.scheduleFlush()
	}
}

func (a *diagnosticsActor) scheduleFlush() {
	if !a.flushing {
		a.flushing = true
		a.timers.After(a.cfg.BatchDelay, &flushBatches{})
	}
}

// onFlush sends each ready subscriber a batch of what is new to it.
func (a *diagnosticsActor) onFlush(ctx actor.Context) {
	a.flushing = false
	for id, s := range a.subscribed {
		if s.unacked || len(s.dirty) == 0 {
			continue
		}
		if files := a.batchFor(id, s); len(files) > 0 {
			s.unacked = true
			ctx.Send(s.subscriber, &messages.DiagnosticBatch{Session: id, Files: files})
		}
	}
}

// batchFor builds a session's batch from its dirty documents: the
// diagnostics not delivered to it yet, within the batch caps. What a cap
// cut stays undelivered and its document dirty, for the next batch.
func (a *diagnosticsActor) batchFor(id string, s *session) []messages.FileReport {
	uris := make([]string, 0, len(s.dirty))
	for u := range s.dirty {
		uris = append(uris, u)
	}
	sort.Strings(uris)
	b := dedup.NewBatch(dedup.PerFile, dedup.PerBatch)
	for _, u := range uris {
		cur, _, _ := a.store.Merged(u, a.store.Get)
		cur = dedup.FilterSeverity(cur, a.cfg.MinSeverity)
		s.delivered.Retain(u, cur)
		unseen := s.delivered.Unseen(u, cur)
		if len(unseen) == 0 {
			delete(s.dirty, u)
			continue
		}
		b.Add(u, unseen)
	}
	var out []messages.FileReport
	for _, f := range b.Files() {
		if len(f.Diagnostics) == 0 {
			continue
		}
		s.delivered.Mark(f.URI, f.Diagnostics)
		if f.More == 0 {
			delete(s.dirty, f.URI)
		}
		status, detail := a.fileStatus(f.URI)
		out = append(out, messages.FileReport{URI: f.URI, Status: status, Diagnostics: f.Diagnostics, More: f.More, Detail: detail})
	}
	return out
}

// markDelivered records what an edit result showed the session, so its
// passive batches do not repeat it.
func (a *diagnosticsActor) markDelivered(id string, files []messages.FileReport) {
	if id == "" {
		return
	}
	s := a.session(id)
	for _, f := range files {
		// Forget what went away first, so the set holds only current keys.
		cur, _, _ := a.store.Merged(f.URI, a.store.Get)
		s.delivered.Retain(f.URI, cur)
		s.delivered.Mark(f.URI, f.Diagnostics)
	}
}
