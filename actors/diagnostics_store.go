package actors

import "github.com/agentlsp/agentlsp/messages"

// The store keeps, per (server, document), the current entry and a short
// history of the entries it replaced, each with the sequence number of its
// write. An edit remembers only the sequence number when it started: its
// baseline is the entries as of that number, and the documents it may have
// broken are those written since, found in a bounded log of recent writes.
// So an edit costs nothing per document in the store.

const (
	maxHistory   = 16      // replaced entries kept per (server, document)
	maxChangeLog = 1 << 16 // recent writes kept to find what changed
)

// stored is one (server, document)'s entries.
type stored struct {
	cur   diagEntry
	seq   uint64 // when cur was written
	first uint64 // when the first entry was written
	hist  []histEntry
}

type histEntry struct {
	seq uint64
	e   diagEntry
}

// change is one write in the log.
type change struct {
	seq uint64
	key diagKey
}

// entry returns the current entry of k.
func (a *diagnosticsActor) entry(k diagKey) diagEntry {
	if st := a.store[k]; st != nil {
		return st.cur
	}
	return diagEntry{}
}

// entryAt returns the entry k had after write seq. When the history does
// not reach back that far, the oldest entry kept stands in.
func (a *diagnosticsActor) entryAt(k diagKey, seq uint64) diagEntry {
	st := a.store[k]
	if st == nil || st.first > seq {
		return diagEntry{}
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

// write stores a new entry for k and logs the write.
func (a *diagnosticsActor) write(k diagKey, e diagEntry) {
	a.seq++
	st := a.store[k]
	if st == nil {
		st = &stored{first: a.seq}
		a.store[k] = st
	} else {
		st.hist = append(st.hist, histEntry{seq: st.seq, e: st.cur})
		if len(st.hist) > maxHistory {
			st.hist = append(st.hist[:0], st.hist[1:]...)
		}
	}
	st.cur, st.seq = e, a.seq
	a.log = append(a.log, change{seq: a.seq, key: k})
	if len(a.log) > maxChangeLog {
		a.log = append(a.log[:0], a.log[len(a.log)-maxChangeLog/2:]...)
	}
	servers := a.byURI[k.uri]
	if servers == nil {
		servers = make(map[messages.ServerKey]bool)
		a.byURI[k.uri] = servers
	}
	servers[k.server] = true
}

// changedSince returns the keys written after seq: from the log, or by a
// scan of the store when the log no longer reaches back that far.
func (a *diagnosticsActor) changedSince(seq uint64) map[diagKey]bool {
	out := make(map[diagKey]bool)
	if len(a.log) > 0 && a.log[0].seq <= seq+1 {
		for i := len(a.log) - 1; i >= 0 && a.log[i].seq > seq; i-- {
			out[a.log[i].key] = true
		}
		return out
	}
	for k, st := range a.store {
		if st.seq > seq {
			out[k] = true
		}
	}
	return out
}
