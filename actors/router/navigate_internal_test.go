package router

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/textpos"
)

func TestDocumentParams(t *testing.T) {
	const uri, text = "file:///w/a \"b\".go", "package a\n\nfunc F() {}\n"
	at := func(line, char uint32) *messages.Position { return &messages.Position{Line: line, Character: char} }
	lines := textpos.NewLines(text)
	for _, c := range []struct {
		params string
		at     *messages.Position
		want   string
	}{
		{"", nil, `{"textDocument":{"uri":"file:///w/a \"b\".go"}}`},
		{"null", at(2, 5), `{"textDocument":{"uri":"file:///w/a \"b\".go"},"position":{"line":2,"character":5}}`},
		{" { } ", at(0, 0), `{"textDocument":{"uri":"file:///w/a \"b\".go"},"position":{"line":0,"character":0}}`},
		{`{"context":{"includeDeclaration":true}}`, at(2, 11),
			`{"textDocument":{"uri":"file:///w/a \"b\".go"},"position":{"line":2,"character":11},"context":{"includeDeclaration":true}}`},
	} {
		got, err := documentParams(&messages.FileRequest{Path: "a.go", Params: json.RawMessage(c.params), At: c.at}, uri, lines)
		if err != nil || string(got) != c.want || !json.Valid(got) {
			t.Errorf("documentParams(%q) = %s, %v; want %s", c.params, got, err, c.want)
		}
	}
	if _, err := documentParams(&messages.FileRequest{Path: "a.go", At: at(2, 12)}, uri, lines); !errors.Is(err, textpos.ErrPastEnd) {
		t.Errorf("a column past the end: %v, want ErrPastEnd", err)
	}
	if _, err := documentParams(&messages.FileRequest{Path: "a.go", At: at(9, 0)}, uri, lines); !errors.Is(err, textpos.ErrPastEnd) {
		t.Errorf("a line past the end: %v, want ErrPastEnd", err)
	}
	if _, err := documentParams(&messages.FileRequest{Path: "a.go", Params: json.RawMessage(`[1]`)}, uri, lines); err == nil {
		t.Error("parameters that are not an object were taken")
	}
}

func TestKeptFilesTouch(t *testing.T) {
	var k keptFiles
	steps := []struct {
		touch   string
		limit   int
		want    keptFiles
		release []string
	}{
		{"a", 2, keptFiles{"a"}, nil},
		{"b", 2, keptFiles{"a", "b"}, nil},
		{"a", 2, keptFiles{"b", "a"}, nil}, // named again: the most recent
		{"c", 2, keptFiles{"a", "c"}, []string{"b"}},
		{"d", 1, keptFiles{"d"}, []string{"a", "c"}}, // a smaller limit releases the excess
	}
	for _, s := range steps {
		release := k.touch(s.touch, s.limit)
		if !slices.Equal(k, s.want) || !slices.Equal(release, s.release) {
			t.Fatalf("touch(%q, %d) = %v, kept %v; want %v, kept %v", s.touch, s.limit, release, k, s.release, s.want)
		}
	}
	k.remove("d")
	if len(k) != 0 {
		t.Errorf("after remove: %v", k)
	}
}

// textSent: a document's text is sent again unless every server actor of
// the document took this very text, and is still the actor that took it.
func TestTextSent(t *testing.T) {
	a := messages.ServerKey{ServerID: "a", Root: "/w"}
	b := messages.ServerKey{ServerID: "b", Root: "/w"}
	newDoc := func() *document {
		return &document{targets: []messages.Target{{ServerKey: a}, {ServerKey: b}}, gen: 3, sentGen: 3, sentTo: []string{"a1", "b1"}}
	}
	newRouter := func() *routerActor {
		return &routerActor{servers: map[messages.ServerKey]*serverEntry{
			a: {pid: actor.NewPID("local", "a1")}, b: {pid: actor.NewPID("local", "b1")}}}
	}
	for _, c := range []struct {
		name   string
		change func(*routerActor, *document)
		want   bool
	}{
		{"taken by both", func(*routerActor, *document) {}, true},
		{"a newer text", func(_ *routerActor, d *document) { d.gen++ }, false},
		{"never sent", func(_ *routerActor, d *document) { d.sentGen, d.sentTo = 0, nil }, false},
		{"a new actor", func(r *routerActor, _ *document) { r.servers[b] = &serverEntry{pid: actor.NewPID("local", "b2")} }, false},
		{"an actor stopping", func(r *routerActor, _ *document) { r.servers[a].idle = true }, false},
		{"an actor gone", func(r *routerActor, _ *document) { delete(r.servers, a) }, false},
	} {
		r, d := newRouter(), newDoc()
		c.change(r, d)
		if got := r.textSent(d); got != c.want {
			t.Errorf("%s: textSent = %v, want %v", c.name, got, c.want)
		}
	}
}
