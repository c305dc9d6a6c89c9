package diagnostics_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// TestEditNamesTheOtherFilesItLeftOut: an edit that breaks 7 other files
// reports 5 of them and names the other 2 in the edited file's MoreFiles;
// asked for no other file, it names none.
func TestEditNamesTheOtherFilesItLeftOut(t *testing.T) {
	for _, tc := range []struct {
		name      string
		maxOther  int
		wantShown int
		wantLeft  int
	}{
		{"default cap", 0, 5, 2},
		{"cap of 3", 3, 3, 4},
		{"no other file", -1, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClocked(t)
			var others []string
			for i := range 7 {
				u := fmt.Sprintf("file:///r/b%d.go", i)
				others = append(others, u)
				clean := publish(1)
				clean.URI = u
				c.send(clean) // a baseline: the errors below are the edit's
			}
			c.send(&messages.EditStarted{EditID: 1, Session: "a", URI: fakeURI})
			c.await(&messages.AwaitEdit{EditID: 1, Session: "a", URI: fakeURI,
				Servers:     []messages.ServerVersion{{ServerKey: fakeSrv, Version: 2}},
				WaitOptions: messages.WaitOptions{Timeout: time.Second, MaxOtherFiles: tc.maxOther}})
			for _, u := range others {
				broken := publish(2, "broken by the edit")
				broken.URI = u
				c.send(broken)
			}
			c.send(publish(2))
			c.released()
			c.clock.Advance(time.Second)
			testenv.Eventually(t, 10*time.Second, "edit released", c.released)
			r := <-c.results
			var shown []string
			for _, f := range r.Files[1:] {
				shown = append(shown, f.URI)
			}
			left := slices.DeleteFunc(slices.Clone(others), func(u string) bool { return slices.Contains(shown, u) })
			if tc.maxOther < 0 {
				left = nil
			}
			if len(shown) != tc.wantShown || len(r.Files[0].MoreFiles) != tc.wantLeft || !slices.Equal(r.Files[0].MoreFiles, left) {
				t.Errorf("other files %q, more files %q, want %d shown and the other %d named", shown, r.Files[0].MoreFiles,
					tc.wantShown, tc.wantLeft)
			}
		})
	}
}
