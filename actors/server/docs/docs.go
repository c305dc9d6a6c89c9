// Package docs is the server actor's document store: the documents one
// language server has open, with the text and version it has of each, and
// the LSP notifications that keep the server in step (didOpen, didChange
// as one incremental edit or the full text, didSave, didClose).
//
// The store is the server's view of documents; the router's document
// table owns what agents asked for. It outlives the server's processes:
// documents are kept whatever the process's state, and Reopen lists what a
// new process must be given. Versions are strictly increasing per document
// for the store's lifetime, across close and re-open.
//
// A Store is a single-threaded core: owned by one actor, no goroutines, no
// I/O, not safe for concurrent use.
package docs

import (
	"errors"
	"sort"

	"github.com/agentlsp/agentlsp/textpos"
)

// ErrNotOpen: the document is not open on this server.
var ErrNotOpen = errors.New("docs: document not open")

// Document is one document as the server has it. Its fields are read-only
// outside the store.
type Document struct {
	URI        string
	LanguageID string
	Text       string
	Version    int32
	Open       bool // open on the server (or to be re-opened once it runs)
	// SentSeq is the store's change count when this version was made: a
	// change to any document after it may have changed the diagnostics of
	// this one (see Store.Seq).
	SentSeq uint64
}

// Sync is how a server wants documents synchronised, from its
// textDocumentSync capability.
type Sync struct {
	Kind      int // 0 none, 1 full text, 2 incremental
	OpenClose bool
	Save      bool
	Encoding  textpos.Encoding
}

// Store holds the documents of one server.
type Store struct {
	docs map[string]*Document
	open int    // documents open
	seq  uint64 // changes made to the server's view of the workspace
}

// New returns an empty store.
func New() *Store { return &Store{docs: make(map[string]*Document)} }

// Seq counts the changes sent to the server (opens, changes, closes, and
// those NoteChange records): diagnostics computed before the server saw
// change n describe an older workspace than diagnostics after it.
func (s *Store) Seq() uint64 { return s.seq }

// NoteChange records a change to the server's view made outside the
// store (workspace/didChangeWatchedFiles) and returns the new Seq.
func (s *Store) NoteChange() uint64 {
	s.seq++
	return s.seq
}

// Get returns the document at uri, nil when the store never had it.
func (s *Store) Get(uri string) *Document { return s.docs[uri] }

// Result is what a document operation did. Old is the text before a
// change (for the incremental edit); Changed is false when nothing was
// sent because the server has that text already.
type Result struct {
	Doc     *Document
	Opened  bool // a didOpen is due
	Changed bool
	Touched bool // Changed by Touch: a new version of the same text
	Old     string
}

// Open opens uri with text, or replaces the text of an open document.
func (s *Store) Open(uri, languageID, text string) Result {
	d, ok := s.docs[uri]
	if ok && d.Open {
		if languageID != "" {
			d.LanguageID = languageID
		}
		r, _ := s.Change(uri, text)
		return r
	}
	if !ok {
		d = &Document{URI: uri}
		s.docs[uri] = d
	}
	d.LanguageID, d.Text, d.Open = languageID, text, true
	s.open++
	s.bump(d)
	return Result{Doc: d, Opened: true, Changed: true}
}

// Change replaces the text of an open document; nothing happens when the
// text is the same.
func (s *Store) Change(uri, text string) (Result, error) {
	d, ok := s.docs[uri]
	if !ok || !d.Open {
		return Result{}, ErrNotOpen
	}
	if d.Text == text {
		return Result{Doc: d}, nil
	}
	old := d.Text
	d.Text = text
	s.bump(d)
	return Result{Doc: d, Changed: true, Old: old}, nil
}

// Touch gives an open document a new version with the same text, so that
// the server diagnoses it again in a workspace that includes every change
// sent before: the version a fresh answer must describe. It does so only
// when something changed since the current version was sent (Seq moved),
// else Changed is false.
func (s *Store) Touch(uri string) (Result, error) {
	d, ok := s.docs[uri]
	if !ok || !d.Open {
		return Result{}, ErrNotOpen
	}
	if d.SentSeq == s.seq {
		return Result{Doc: d}, nil
	}
	s.bump(d)
	return Result{Doc: d, Changed: true, Touched: true, Old: d.Text}, nil
}

// Renew gives an open document a new version with the same text,
// whatever was sent since (Touch gives one only when something was).
func (s *Store) Renew(uri string) (Result, error) {
	d, ok := s.docs[uri]
	if !ok || !d.Open {
		return Result{}, ErrNotOpen
	}
	s.bump(d)
	return Result{Doc: d, Changed: true, Touched: true, Old: d.Text}, nil
}

func (s *Store) bump(d *Document) {
	d.Version++
	s.seq++
	d.SentSeq = s.seq
}

// Close closes an open document; its version is kept so that a re-open
// continues the sequence.
func (s *Store) Close(uri string) (*Document, error) {
	d, ok := s.docs[uri]
	if !ok || !d.Open {
		return nil, ErrNotOpen
	}
	d.Open, d.Text = false, ""
	s.open--
	s.seq++
	return d, nil
}

// IsOpen reports whether uri is open.
func (s *Store) IsOpen(uri string) bool {
	d, ok := s.docs[uri]
	return ok && d.Open
}

// OpenDocuments returns the open documents, sorted by URI.
func (s *Store) OpenDocuments() []*Document {
	out := make([]*Document, 0, len(s.docs))
	for _, d := range s.docs {
		if d.Open {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// EachOpen calls f with each open document, in no order.
func (s *Store) EachOpen(f func(*Document)) {
	for _, d := range s.docs {
		if d.Open {
			f(d)
		}
	}
}

// OpenCount is the number of open documents (kept, not counted: the
// server actor asks after every call whether it is idle).
func (s *Store) OpenCount() int { return s.open }

// Versions returns the version of every open document.
func (s *Store) Versions() map[string]int32 {
	out := make(map[string]int32)
	for uri, d := range s.docs {
		if d.Open {
			out[uri] = d.Version
		}
	}
	return out
}
