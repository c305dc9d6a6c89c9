package dedup

import (
	"slices"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/agentlsp/agentlsp/messages"
)

// Delivered is one agent session's memory of the diagnostics it has already
// been given, so a diagnostic is reported to a session once across turns.
// It is an LRU of files (keyed by document URI), each holding the Keys
// delivered for that file: at most its file limit of files and
// MaxKeysPerFile keys per file. A file evicted from the LRU is forgotten, so
// its diagnostics are reported again. Each session has its own Delivered;
// sessions never suppress each other's diagnostics.
//
// A Delivered is not safe for concurrent use: it is owned by one actor.
// None of its methods blocks.
type Delivered struct {
	files *lru.Cache[string, *keySet]
}

// NewDelivered returns an empty Delivered that remembers at most maxFiles
// files; maxFiles <= 0 means MaxFiles.
func NewDelivered(maxFiles int) *Delivered {
	if maxFiles <= 0 {
		maxFiles = MaxFiles
	}
	files, err := lru.New[string, *keySet](maxFiles)
	if err != nil { // only for a size <= 0, excluded above
		panic(err)
	}
	return &Delivered{files: files}
}

// Filter returns, in a new slice, the diagnostics of ds not yet delivered
// for uri, and marks them delivered. Equal diagnostics within ds are
// returned once. Filter marks everything it returns: a caller that caps the
// result afterwards, and wants what the caps cut to come again later, uses
// Unseen and Mark instead. Filter makes uri the most recently used file,
// even when nothing is fresh.
func (d *Delivered) Filter(uri string, ds []messages.Diagnostic) (fresh []messages.Diagnostic) {
	fresh = d.Unseen(uri, ds)
	d.files.Get(uri) // only to mark uri as used
	d.Mark(uri, fresh)
	return fresh
}

// Sync is Filter for a file's complete current diagnostics: it returns the
// ones not yet delivered and replaces the file's delivered set by the Keys
// of current. A diagnostic that went away and later comes back is thus
// reported again. An empty current forgets the file.
func (d *Delivered) Sync(uri string, current []messages.Diagnostic) (fresh []messages.Diagnostic) {
	fresh = d.Unseen(uri, current)
	d.files.Remove(uri)
	d.Mark(uri, current)
	return fresh
}

// Unseen returns, in a new slice, the diagnostics of ds not yet delivered
// for uri, without marking them. Equal diagnostics within ds are returned
// once.
func (d *Delivered) Unseen(uri string, ds []messages.Diagnostic) []messages.Diagnostic {
	seen, _ := d.files.Peek(uri)
	var fresh []messages.Diagnostic
	var returned map[Key]struct{} // past SmallSet: fresh is searched pair by pair up to there
	for _, diag := range ds {
		k := KeyOf(diag)
		if seen.has(k) {
			continue
		}
		switch {
		case returned != nil:
			if _, ok := returned[k]; ok {
				continue
			}
			returned[k] = struct{}{}
		case len(fresh) < SmallSet:
			if Contains(fresh, diag) {
				continue
			}
		default:
			returned = make(map[Key]struct{}, 2*len(fresh))
			for _, f := range fresh {
				returned[KeyOf(f)] = struct{}{}
			}
			if _, ok := returned[k]; ok {
				continue
			}
			returned[k] = struct{}{}
		}
		fresh = append(fresh, diag)
	}
	return fresh
}

// Mark records the diagnostics of ds as delivered for uri and makes uri the
// most recently used file, which may evict the least recently used one.
// Keys beyond MaxKeysPerFile for the file are not recorded.
func (d *Delivered) Mark(uri string, ds []messages.Diagnostic) {
	if len(ds) == 0 {
		return
	}
	set, ok := d.files.Get(uri)
	if !ok {
		set = &keySet{}
		d.files.Add(uri, set)
	}
	for _, diag := range ds {
		if set.len() >= MaxKeysPerFile {
			return
		}
		set.add(KeyOf(diag))
	}
}

// Retain drops from uri's delivered set the Keys that are not among
// current, the file's complete current diagnostics, without marking
// anything: a diagnostic that went away is reported again if it comes back.
func (d *Delivered) Retain(uri string, current []messages.Diagnostic) {
	set, ok := d.files.Peek(uri)
	if !ok {
		return
	}
	if len(current) <= SmallSet {
		set.retain(func(k Key) bool { return containsKey(current, k) })
	} else {
		keep := countKeys(current)
		set.retain(func(k Key) bool { return keep[k] > 0 })
	}
	if set.len() == 0 {
		d.files.Remove(uri)
	}
}

// Forget drops everything delivered for uri, for a file that was fixed,
// closed or deleted.
func (d *Delivered) Forget(uri string) {
	d.files.Remove(uri)
}

// Len returns the number of files remembered, at most the file limit.
func (d *Delivered) Len() int {
	return d.files.Len()
}

// keySet is the set of Keys delivered for one file: a slice while it is
// small (a file's few diagnostics, marked and dropped at every edit: a map
// each time was most of what an answer allocated), a map past SmallSet.
// A nil *keySet is empty.
type keySet struct {
	small []Key
	big   map[Key]struct{} // once set, holds every key
}

func (s *keySet) has(k Key) bool {
	switch {
	case s == nil:
		return false
	case s.big != nil:
		_, ok := s.big[k]
		return ok
	}
	return slices.Contains(s.small, k)
}

func (s *keySet) len() int {
	if s.big != nil {
		return len(s.big)
	}
	return len(s.small)
}

func (s *keySet) add(k Key) {
	switch {
	case s.big != nil:
		s.big[k] = struct{}{}
	case slices.Contains(s.small, k):
	case len(s.small) < SmallSet:
		s.small = append(s.small, k)
	default:
		s.big = make(map[Key]struct{}, 2*SmallSet)
		for _, o := range s.small {
			s.big[o] = struct{}{}
		}
		s.big[k], s.small = struct{}{}, nil
	}
}

// retain drops the keys keep refuses.
func (s *keySet) retain(keep func(Key) bool) {
	if s.big != nil {
		for k := range s.big {
			if !keep(k) {
				delete(s.big, k)
			}
		}
		return
	}
	s.small = slices.DeleteFunc(s.small, func(k Key) bool { return !keep(k) })
}
