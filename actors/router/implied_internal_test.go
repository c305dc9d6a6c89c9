package router

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/agentlsp/agentlsp/config"
)

// TestImpliedWalkIsBounded: the walk for implied roots reads at most its
// bound of directories, however they are spread over the depth levels (it
// once checked the bound only between levels and read 10,101).
func TestImpliedWalkIsBounded(t *testing.T) {
	ws := t.TempDir()
	for i := range 300 {
		if err := os.MkdirAll(filepath.Join(ws, "d"+strconv.Itoa(i), "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	servers := []*config.Server{{ID: "x", RootMarkers: []string{"go.mod"}}}
	if _, visited := impliedWalk(ws, servers, 100); visited > 100 {
		t.Errorf("the walk read %d directories, want at most 100", visited)
	}
	if _, visited := impliedWalk(ws, servers, 10000); visited != 601 {
		t.Errorf("an unbounded walk read %d directories, want all 601", visited)
	}
}
