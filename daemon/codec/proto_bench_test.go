package codec

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agentlsp/agentlsp/messages"
)

// The serializer was chosen by measuring: this file encodes the messages
// of a hover round trip and of an edit as protobuf would (hand-written
// with protowire, as fast as generated code or faster), against this
// package's JSON. See docs/BENCHMARKS.md ("Serializer").

// fileText is a Go file of about 8 KB, the size of a typical source file.
var fileText = strings.Repeat("// Run is the entry point of the package.\nfunc Run(x int) int {\n\tv := p1.Run(x)\n\treturn helper(v) + helper(x)\n}\n\n", 80)

var (
	key = messages.ServerKey{ServerID: "gopls", Root: "/home/u/src/project"}
	now = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	// hoverMessages is one navigation: the sync of the file and its reply
	// (with the text), the request and its reply.
	hoverMessages = []any{
		&messages.SyncDocument{Session: "c1/mcp-1", Path: "p7/p7.go", Action: messages.SyncCurrent},
		&messages.FileSynced{Path: "/home/u/src/project/p7/p7.go", URI: "file:///home/u/src/project/p7/p7.go",
			Servers: []messages.ServerVersion{{ServerKey: key, Version: 3, SentAt: now}}, Text: fileText},
		&messages.FileRequest{ID: 1<<40 | 17, Path: "p7/p7.go", Method: "textDocument/hover",
			Params: json.RawMessage(`{"position":{"character":8,"line":13},"textDocument":{"uri":"file:///home/u/src/project/p7/p7.go"}}`)},
		&messages.FileResponse{ID: 1<<40 | 17, Results: []messages.ServerResult{{ServerKey: key,
			Result: json.RawMessage(`{"contents":{"kind":"markdown","value":"` + "```go\\nfunc p6.Run(x int) int\\n```\\n\\n---\\n\\nRun is the entry point of package p6.\\n\\n\\n---\\n\\n[`p6.Run` on pkg.go.dev](https://pkg.go.dev/example.com/bench/p6#Run)" + `"},"range":{"end":{"character":11,"line":13},"start":{"character":8,"line":13}}}`)}}},
	}
	// editMessages is one edit: the baseline, the change and its reply,
	// the wait and the diagnostics.
	editMessages = []any{
		&messages.EditStarted{EditID: 1<<40 | 18, Session: "c1/agent", URI: "file:///home/u/src/project/p7/p7.go"},
		&messages.SyncDocument{Session: "c1/agent", Path: "p7/p7.go", Action: messages.SyncChange, Text: fileText},
		&messages.FileSynced{Path: "/home/u/src/project/p7/p7.go", URI: "file:///home/u/src/project/p7/p7.go",
			Servers: []messages.ServerVersion{{ServerKey: key, Version: 4, Changed: true, SentAt: now}}, Text: fileText},
		&messages.AwaitEdit{EditID: 1<<40 | 18, Session: "c1/agent", URI: "file:///home/u/src/project/p7/p7.go",
			Servers: []messages.ServerVersion{{ServerKey: key, Version: 4, Changed: true, SentAt: now}}, WaitOptions: messages.WaitOptions{Timeout: 3 * time.Second}},
		&messages.EditResult{EditID: 1<<40 | 18, Status: messages.StatusFresh, Elapsed: 80 * time.Millisecond,
			Files: []messages.FileReport{{URI: "file:///home/u/src/project/p7/p7.go", Status: messages.StatusFresh, Servers: []string{"gopls"},
				Diagnostics: []messages.Diagnostic{{Range: messages.Range{Start: messages.Position{Line: 13, Character: 8}, End: messages.Position{Line: 13, Character: 17}},
					Severity: messages.SeverityError, Code: "UndeclaredImportedName", Source: "compiler", Message: "undefined: p6.RunBroken"}}}}},
	}
)

func benchCodec(b *testing.B, msgs []any, marshal func(any) ([]byte, string, error), unmarshal func(string, []byte) (any, error)) {
	size := 0
	for b.Loop() {
		size = 0
		for _, m := range msgs {
			data, name, err := marshal(m)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := unmarshal(name, data); err != nil {
				b.Fatal(err)
			}
			size += len(data)
		}
	}
	b.ReportMetric(float64(size), "bytes/op")
}

func benchProto(b *testing.B, msgs []any) {
	size := 0
	for b.Loop() {
		size = 0
		for _, m := range msgs {
			data := protoMarshal(m)
			protoUnmarshal(m, data)
			size += len(data)
		}
	}
	b.ReportMetric(float64(size), "bytes/op")
}

// BenchmarkHoverJSON: encode and decode the messages of one hover as
// JSON (encoding/json, generic).
func BenchmarkHoverJSON(b *testing.B) { benchCodec(b, hoverMessages, jsonMarshal, jsonUnmarshal) }

// BenchmarkHoverProto: the same with protobuf written by hand.
func BenchmarkHoverProto(b *testing.B) { benchProto(b, hoverMessages) }

// BenchmarkHoverCodec: the same with this package's codec (protobuf wire
// format, schema from the Go types).
func BenchmarkHoverCodec(b *testing.B) { benchCodec(b, hoverMessages, Marshal, Unmarshal) }

// BenchmarkEditJSON: encode and decode the messages of one edit.
func BenchmarkEditJSON(b *testing.B) { benchCodec(b, editMessages, jsonMarshal, jsonUnmarshal) }

// BenchmarkEditProto: the same with protobuf written by hand.
func BenchmarkEditProto(b *testing.B) { benchProto(b, editMessages) }

// BenchmarkEditCodec: the same with this package's codec.
func BenchmarkEditCodec(b *testing.B) { benchCodec(b, editMessages, Marshal, Unmarshal) }

// TestProtoEncodingIsFaithful: the protobuf side of the benchmark decodes
// what it encodes (so it measures a real codec).
func TestProtoEncodingIsFaithful(t *testing.T) {
	for _, m := range append(append([]any(nil), hoverMessages...), editMessages...) {
		if got := protoUnmarshal(m, protoMarshal(m)); !jsonEqual(got, m) {
			t.Errorf("protobuf round trip of %T: got %+v, want %+v", m, got, m)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// The protobuf schema, by hand: one function per message.

type pb []byte

func (p pb) str(n protowire.Number, s string) pb {
	if s == "" {
		return p
	}
	return protowire.AppendString(protowire.AppendTag(p, n, protowire.BytesType), s)
}
func (p pb) bytes(n protowire.Number, s []byte) pb {
	if len(s) == 0 {
		return p
	}
	return protowire.AppendBytes(protowire.AppendTag(p, n, protowire.BytesType), s)
}
func (p pb) uint(n protowire.Number, v uint64) pb {
	if v == 0 {
		return p
	}
	return protowire.AppendVarint(protowire.AppendTag(p, n, protowire.VarintType), v)
}
func (p pb) msg(n protowire.Number, m pb) pb { return p.bytes(n, m) }

func pbKey(k messages.ServerKey) pb { return pb(nil).str(1, k.ServerID).str(2, k.Root) }

func pbVersion(v messages.ServerVersion) pb {
	return pb(nil).msg(1, pbKey(v.ServerKey)).uint(2, uint64(v.Version)).uint(3, b2u(v.Changed)).uint(4, uint64(v.SentAt.UnixNano()))
}

func pbPos(p messages.Position) pb {
	return pb(nil).uint(1, uint64(p.Line)).uint(2, uint64(p.Character))
}

func protoMarshal(m any) []byte {
	switch m := m.(type) {
	case *messages.SyncDocument:
		return pb(nil).str(1, m.Session).str(2, m.Path).uint(3, uint64(m.Action)).str(4, m.Text).uint(5, b2u(m.Fresh))
	case *messages.FileSynced:
		p := pb(nil).str(1, m.Path).str(2, m.URI)
		for _, v := range m.Servers {
			p = p.msg(3, pbVersion(v))
		}
		return p.str(4, m.Text)
	case *messages.FileRequest:
		return pb(nil).uint(1, m.ID).str(2, m.Path).str(3, m.Method).bytes(4, m.Params).uint(5, uint64(m.Timeout))
	case *messages.FileResponse:
		p := pb(nil).uint(1, m.ID)
		for _, r := range m.Results {
			p = p.msg(2, pb(nil).msg(1, pbKey(r.ServerKey)).bytes(2, r.Result).uint(4, b2u(r.Indexing)))
		}
		return p
	case *messages.EditStarted:
		return pb(nil).uint(1, m.EditID).str(2, m.Session).str(3, m.URI)
	case *messages.AwaitEdit:
		p := pb(nil).uint(1, m.EditID).str(2, m.Session).str(3, m.URI)
		for _, v := range m.Servers {
			p = p.msg(4, pbVersion(v))
		}
		return p.uint(5, uint64(m.Timeout)).uint(6, uint64(m.Settle)).uint(7, b2u(m.All)).uint(8, uint64(m.MinSeverity)).
			uint(9, uint64(m.MaxEdited)).uint(10, uint64(m.MaxOtherFiles))
	case *messages.EditResult:
		p := pb(nil).uint(1, m.EditID).str(2, string(m.Status))
		for _, f := range m.Files {
			fp := pb(nil).str(1, f.URI).str(2, f.Path).str(3, string(f.Status))
			for _, d := range f.Diagnostics {
				r := pb(nil).msg(1, pbPos(d.Range.Start)).msg(2, pbPos(d.Range.End))
				fp = fp.msg(4, pb(nil).msg(1, r).uint(2, uint64(d.Severity)).str(3, d.Code).str(4, d.Source).str(5, d.Message))
			}
			fp = fp.uint(5, uint64(f.More))
			for _, s := range f.Servers {
				fp = fp.str(6, s)
			}
			p = p.msg(3, fp.str(7, f.Detail))
		}
		return p.uint(4, uint64(m.Elapsed))
	}
	panic("no protobuf schema for this message")
}
