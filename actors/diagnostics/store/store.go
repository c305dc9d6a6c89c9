// Package store is the diagnostics actor's store: the latest push and the
// latest pull result per (server, document), each with the version it
// describes and when it arrived, a short history of the entries each one
// replaced, and a bounded log of recent writes.
//
// Writes are numbered (Seq). An edit remembers only the number when it
// started: its baseline is the entries as of that number (EntryAt), and
// the documents it may have changed are those written since
// (ChangedSince). So an edit costs nothing per document in the store.
//
// The store is bounded: at most MaxKeys (server, document) entries (the
// oldest written without diagnostics are forgotten first, then the oldest),
// MaxHistory replaced entries per key, and MaxLog writes in each server's
// log.
//
// A Store is a single-threaded core: owned by one actor, no goroutines, no
// I/O, time passed in; not safe for concurrent use.
package store

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/agentlsp/agentlsp/dedup"
	"github.com/agentlsp/agentlsp/messages"
)

// Bounds of a store.
const (
	MaxKeys    = 50000   // (server, document) entries
	MaxHistory = 16      // replaced entries kept per key
	MaxLog     = 1 << 14 // recent writes kept per server, to find what changed
)

// Key names the diagnostics of one document from one server.
type Key struct {
	Server messages.ServerKey
	URI    string
}

// Published is one set of diagnostics as received; never changed after.
type Published struct {
	Version    int32
	HasVersion bool
	At         time.Time
	Diags      []messages.Diagnostic
	Dropped    int // beyond the per-key cap
	// View: a pull's, the server's view when it was asked for; a push's,
	// the view when it came (PublishedDiagnostics.View).
	View uint64
}

// Entry is the latest push and the latest pull result of a document.
type Entry struct {
	Push, Pull *Published
}

// Empty reports whether nothing was received.
func (e Entry) Empty() bool { return e.Push == nil && e.Pull == nil }

// Current is the entry's diagnostics: the newer of push and pull, both
// (deduplicated) when they describe the same version, unless the push
// came before a change the pull describes (its View is older than the
// pull's): a server that is pulled and pushes too (rust-analyzer pushes
// what its cargo check found) keeps a push of the document's version
// through changes of other files, which leave the version as it was.
func (e Entry) Current() []messages.Diagnostic {
	switch {
	case e.Empty():
		return nil
	case e.Pull == nil:
		return e.Push.Diags
	case e.Push == nil:
		return e.Pull.Diags
	case e.Push.HasVersion && e.Push.Version > e.Pull.Version:
		return e.Push.Diags
	case e.Push.HasVersion && e.Push.Version < e.Pull.Version, e.Push.View < e.Pull.View:
		return e.Pull.Diags
	}
	return dedup.Union(e.Pull.Diags, e.Push.Diags)
}

// Pulled is the version the entry's pull describes (0 when none).
func (e Entry) Pulled() int32 {
	if e.Pull == nil {
		return 0
	}
	return e.Pull.Version
}

// Latest is the newest version the entry describes (0 when none).
func (e Entry) Latest() int32 {
	var v int32
	if e.Push != nil && e.Push.HasVersion {
		v = e.Push.Version
	}
	if e.Pull != nil && e.Pull.Version > v {
		v = e.Pull.Version
	}
	return v
}

// stored is one key's entries.
type stored struct {
	cur   Entry
	seq   uint64 // when cur was written
	first uint64 // when the first entry was written
	hist  []histEntry
}

type histEntry struct {
	seq uint64
	e   Entry
}

type write struct {
	seq uint64
	key Key
}

// serverLog is one server's recent writes, oldest first; dropped is the
// number of the newest write it no longer holds (0: none).
type serverLog struct {
	writes  []write
	dropped uint64
}

// Store holds the entries.
type Store struct {
	maxKeys int
	entries map[Key]*stored
	byURI   map[string][]messages.ServerKey // sorted; a slice is never changed once stored (Servers hands it out)
	seq     uint64
	logs    map[messages.ServerKey]*serverLog
}

// New returns an empty store bounded to maxKeys keys (0: MaxKeys).
func New(maxKeys int) *Store {
	if maxKeys <= 0 {
		maxKeys = MaxKeys
	}
	return &Store{maxKeys: maxKeys, entries: make(map[Key]*stored), byURI: make(map[string][]messages.ServerKey),
		logs: make(map[messages.ServerKey]*serverLog)}
}

// Seq is the number of writes so far.
func (s *Store) Seq() uint64 { return s.seq }

// Len is the number of keys held.
func (s *Store) Len() int { return len(s.entries) }

// Get returns the current entry of k.
func (s *Store) Get(k Key) Entry {
	if st := s.entries[k]; st != nil {
		return st.cur
	}
	return Entry{}
}

// At returns the entry k had after write seq. When the history does not
// reach back that far, the oldest entry kept stands in.
func (s *Store) At(k Key, seq uint64) Entry {
	st := s.entries[k]
	if st == nil || st.first > seq {
		return Entry{}
	}
	if st.seq <= seq {
		return st.cur
	}
	for i := len(st.hist) - 1; i >= 0; i-- {
		if st.hist[i].seq <= seq {
			return st.hist[i].e
		}
	}
	if len(st.hist) > 0 {
		return st.hist[0].e
	}
	return st.cur
}

// Write stores p as k's push (or pull) result and returns the new entry.
func (s *Store) Write(k Key, pulled bool, p *Published) Entry {
	s.seq++
	st := s.entries[k]
	if st == nil {
		s.evictIfFull()
		st = &stored{first: s.seq}
		s.entries[k] = st
		s.addServer(k)
	} else {
		st.hist = append(st.hist, histEntry{seq: st.seq, e: st.cur})
		if len(st.hist) > MaxHistory {
			st.hist = append(st.hist[:0], st.hist[1:]...)
		}
	}
	e := st.cur
	if pulled {
		e.Pull = p
	} else {
		e.Push = p
	}
	st.cur, st.seq = e, s.seq
	l := s.logs[k.Server]
	if l == nil {
		l = &serverLog{}
		s.logs[k.Server] = l
	}
	l.writes = append(l.writes, write{seq: s.seq, key: k})
	if n := len(l.writes); n > MaxLog {
		l.dropped = l.writes[n-MaxLog/2-1].seq
		l.writes = append(l.writes[:0], l.writes[n-MaxLog/2:]...)
	}
	return e
}

// evictIfFull forgets a tenth of the keys when the store is full: those
// without diagnostics first (nothing to report is lost), oldest written
// first. Amortized, a write costs O(log n).
func (s *Store) evictIfFull() {
	if len(s.entries) < s.maxKeys {
		return
	}
	type cand struct {
		k     Key
		empty bool
		seq   uint64
	}
	cands := make([]cand, 0, len(s.entries))
	for k, st := range s.entries {
		cands = append(cands, cand{k, len(st.cur.Current()) == 0, st.seq})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].empty != cands[j].empty {
			return cands[i].empty
		}
		return cands[i].seq < cands[j].seq
	})
	for _, c := range cands[:max(1, s.maxKeys/10)] {
		s.forget(c.k)
	}
}

// Forget drops what is stored for k: its document moved to another server.
func (s *Store) Forget(k Key) { s.forget(k) }

func (s *Store) forget(k Key) {
	delete(s.entries, k)
	old := s.byURI[k.URI]
	if i := slices.Index(old, k.Server); i >= 0 {
		if len(old) == 1 {
			delete(s.byURI, k.URI)
			return
		}
		s.byURI[k.URI] = slices.Delete(slices.Clone(old), i, i+1)
	}
}

// addServer records that k's server has an entry for k's document, in a
// new slice: one handed out by Servers stays as it was.
func (s *Store) addServer(k Key) {
	old := s.byURI[k.URI]
	i, found := slices.BinarySearchFunc(old, k.Server, compareServers)
	if !found {
		s.byURI[k.URI] = slices.Insert(slices.Clip(old), i, k.Server)
	}
}

func compareServers(a, b messages.ServerKey) int {
	return cmp.Or(cmp.Compare(a.ServerID, b.ServerID), cmp.Compare(a.Root, b.Root))
}

// ChangedSince returns the documents of the keys of servers written after
// seq that keep accepts: from each server's log, or by a scan of the store
// when that log no longer reaches back that far. Only the servers' own
// writes are looked at (with a thousand agents on ten roots, an edit's
// servers wrote a tenth of what was written while it ran).
func (s *Store) ChangedSince(seq uint64, servers []messages.ServerKey, keep func(Key) bool) map[string]bool {
	out := make(map[string]bool)
	for _, sv := range servers {
		l := s.logs[sv]
		switch {
		case l == nil:
		case l.dropped > seq:
			for k, st := range s.entries {
				if k.Server == sv && st.seq > seq && !out[k.URI] && keep(k) {
					out[k.URI] = true
				}
			}
		default:
			for i := len(l.writes) - 1; i >= 0 && l.writes[i].seq > seq; i-- {
				if k := l.writes[i].key; !out[k.URI] && keep(k) {
					out[k.URI] = true
				}
			}
		}
	}
	return out
}

// Servers returns the servers that sent diagnostics for uri, sorted. The
// slice is the store's own, never changed once handed out: read it, do not
// write it (it costs no allocation per call, and every answer asks).
func (s *Store) Servers(uri string) []messages.ServerKey {
	return slices.Clip(s.byURI[uri]) // an append by a reader makes its own copy
}

// URIs returns every document with diagnostics.
func (s *Store) URIs() []string {
	out := make([]string, 0, len(s.byURI))
	for u := range s.byURI {
		out = append(out, u)
	}
	return out
}

// Merged is every server's diagnostics of uri, looked up with get (Get for
// now, or an edit's baseline), each key once, with the servers that have
// any and the count dropped beyond the caps. diags may be the store's own
// slice (one server's diagnostics, none twice: no copy made): read it, do
// not write it.
func (s *Store) Merged(uri string, get func(Key) Entry) (diags []messages.Diagnostic, servers []string, dropped int) {
	for _, k := range s.Servers(uri) {
		e := get(Key{Server: k, URI: uri})
		if e.Empty() {
			continue
		}
		switch cur := e.Current(); {
		case len(cur) == 0:
		case diags == nil && distinct(cur):
			diags = cur
		default:
			diags = dedup.Union(diags, cur)
		}
		servers = append(servers, k.ServerID)
		if e.Push != nil {
			dropped += e.Push.Dropped
		}
	}
	return diags, servers, dropped
}

// distinct reports whether ds is small enough to tell at once and holds no
// key twice.
func distinct(ds []messages.Diagnostic) bool {
	if len(ds) > dedup.SmallSet {
		return false
	}
	for i := range ds {
		if dedup.Contains(ds[:i], ds[i]) {
			return false
		}
	}
	return true
}
