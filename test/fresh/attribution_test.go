package fresh

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/messages"
)

// Package a is imported by b; package e stands alone.
var attrFiles = map[string]string{
	"go.mod": "module example.com/attr\n\ngo 1.22\n",
	"a/a.go": "package a\n\n// F is changed by session A.\nfunc F(x int) int { return x }\n",
	"b/b.go": "package b\n\nimport \"example.com/attr/a\"\n\n// G calls a.F.\nfunc G() int { return a.F(1) }\n",
	"e/e.go": "package e\n\n// E stands alone.\nfunc E() int { return 1 }\n",
	"c/c.go": "package c\n\nimport \"example.com/attr/e\"\n\n// H calls e.E.\nfunc H() int { return e.E() }\n",
}

const brokenA = "package a\n\n// F is changed by session A.\nfunc F(x, y int) int { return x + y }\n"

func names(fs []messages.FileReport) []string {
	var out []string
	for _, f := range fs {
		out = append(out, filepath.ToSlash(f.Path))
	}
	return out
}

func has(fs []messages.FileReport, rel string) bool {
	for _, n := range names(fs) {
		if n == rel {
			return true
		}
	}
	return false
}

// warm opens every file in a session so gopls has diagnosed them all.
func warm(t *testing.T, s *agentlsp.Session, files ...string) {
	for _, f := range files {
		freshDiagnostics(t, s, f)
	}
}

// TestAloneEditCascadeIsExact: an edit alone reports the files it broke.
func TestAloneEditCascadeIsExact(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	a := rt.Session("A")
	warm(t, a, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	res, err := a.Edit(context.Background(), "a/a.go", brokenA, agentlsp.WithTimeout(20*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if !has(res.Files, "b/b.go") || len(res.Meanwhile) != 0 {
		t.Errorf("A alone: files %v, meanwhile %v; want b/b.go caused, nothing meanwhile", names(res.Files), names(res.Meanwhile))
	}
}

// TestOtherSessionsBreakageIsNotYours: session A breaks b while session B
// edits a comment in e at the same time: B's answer does not name b's
// errors as its own; A's does.
func TestOtherSessionsBreakageIsNotYours(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	sa, sb := rt.Session("A"), rt.Session("B")
	warm(t, sa, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	var resA, resB *messages.EditResult
	var errA, errB error
	var wg sync.WaitGroup
	wg.Go(func() {
		resA, errA = sa.Edit(context.Background(), "a/a.go", brokenA, agentlsp.WithTimeout(20*time.Second))
	})
	wg.Go(func() {
		resB, errB = sb.Edit(context.Background(), "e/e.go", attrFiles["e/e.go"]+"\n// a comment\n",
			agentlsp.WithTimeout(20*time.Second))
	})
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if has(resB.Files, "b/b.go") {
		t.Errorf("B's comment edit names b/b.go as broken by it: files %v", names(resB.Files))
	}
	if !has(resA.Files, "b/b.go") {
		t.Errorf("A's edit does not name b/b.go: files %v, meanwhile %v", names(resA.Files), names(resA.Meanwhile))
	}
}

// TestDiskChangeIsNotBlamedOnAnEdit: a file written on disk while an edit
// waits breaks another package: the edit does not take it as its own.
func TestDiskChangeIsNotBlamedOnAnEdit(t *testing.T) {
	ws := workspace(t, attrFiles)
	rt := start(t, ws)
	s := rt.Session("B")
	warm(t, s, "a/a.go", "b/b.go", "e/e.go", "c/c.go")
	done := make(chan struct{})
	go func() { // ends when the edit returned
		defer close(done)
		time.Sleep(20 * time.Millisecond) // while the edit waits: a real agent's timing, not a synchronisation
		write(t, ws, "a/a.go", brokenA)
	}()
	res, err := s.Edit(context.Background(), "e/e.go", attrFiles["e/e.go"]+"\n// a comment\n",
		agentlsp.WithTimeout(20*time.Second))
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if has(res.Files, "b/b.go") {
		t.Errorf("a change on disk to a/a.go blamed on an edit of e/e.go: files %v", names(res.Files))
	}
}
