package editor_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/editor"
	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestMain checks, after the tests, for leaked goroutines (goleak, through
// testenv.Main), child processes and actors.
func TestMain(m *testing.M) { testenv.Main(m) }

// A view reads each file once; the cache its runtime's views share gives
// the next view the text again only while the file has not changed.
func TestViewsSeeTheFileAsItIsNow(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "a.go")
	write := func(text string, at time.Time) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(file, at, at); err != nil {
			t.Fatal(err)
		}
	}
	texts := editor.NewTexts()
	col := func(path string) uint32 { // the LSP column of the symbol x on line 1
		t.Helper()
		pos, err := editor.New(ws, texts).Position(path, 1, 0, "x")
		if err != nil {
			t.Fatal(err)
		}
		return pos.Character
	}
	now := time.Now()
	write("var é, x = 1, 2\n", now)
	if c := col("a.go"); c != 7 {
		t.Fatalf("column %d, want 7 (é is one UTF-16 unit)", c)
	}
	write("var 𝄞, x = 1, 2\n", now.Add(time.Second)) // a longer text
	if c := col(file); c != 8 {
		t.Errorf("after a change: column %d, want 8 (𝄞 is two UTF-16 units)", c)
	}
	write("var abcd, x = 1, 2\n", now.Add(2*time.Second)) // the same size
	if c := col("a.go"); c != 10 {
		t.Errorf("after a change of the same size: column %d, want 10", c)
	}
	// The same size and the same modification time, as rsync -a, cp -p or
	// tar leave a file they replace: the view read "abcd" at column 10.
	write("var x, abcd = 1, 2\n", now.Add(2*time.Second))
	if c := col("a.go"); c != 4 {
		t.Errorf("after a change of the same size and time: column %d, want 4", c)
	}
	write("\uFEFFvar a, x = 1, 2\n", now.Add(3*time.Second)) // a byte-order mark: the server counts it
	if c := col("a.go"); c != 8 {
		t.Errorf("after a byte-order mark: column %d, want 8 (the mark and \"var a, \")", c)
	}
	if pos, err := editor.New(ws, texts).Position("a.go", 1, 8, ""); err != nil || pos.Character != 8 {
		t.Errorf("editor column 8 after a byte-order mark = %v, %v; want character 8", pos, err)
	}
	if _, err := editor.New(ws, texts).Position("../outside.go", 1, 1, ""); err == nil {
		t.Error("a path outside the workspace was read")
	}
	os.Remove(file)
	var pe *messages.PathError
	if _, err := editor.New(ws, texts).Text("a.go"); err == nil || !asPathError(err, &pe) || pe.Kind != messages.ErrFileNotFound {
		t.Errorf("a deleted file: %v, want file not found", err)
	}
}

func asPathError(err error, pe **messages.PathError) bool { return errors.As(err, pe) }

// TestLocationStringIsOneLine: a location is one line of a text answer
// (the CLI's query, the MCP lsp tool's text): a newline in its path is
// written \n, so a file named with one cannot print a location of its
// own. The Path field stays exact.
func TestLocationStringIsOneLine(t *testing.T) {
	l := editor.Location{Path: "a.go\nforged.go:9:9", Line: 1, Column: 2}
	if got, want := l.String(), `a.go\nforged.go:9:9:1:2`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if l.Path != "a.go\nforged.go:9:9" {
		t.Errorf("Path = %q, changed", l.Path)
	}
}
