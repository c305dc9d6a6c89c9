package results

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

// TestSplitSummarizes: the answer names the servers that answered, lists
// the failures and those still starting, and its server time is the
// longest of the servers' (asked at once, they answer side by side),
// failures included.
func TestSplitSummarizes(t *testing.T) {
	key := func(id string) messages.ServerKey { return messages.ServerKey{ServerID: id, Root: "/w"} }
	rs, ans, err := Split(&messages.FileResponse{Results: []messages.ServerResult{
		{ServerKey: key("gopls"), Result: []byte(`null`), Took: 3 * time.Millisecond},
		{ServerKey: key("golangci"), Err: errors.New("boom"), Took: 7 * time.Millisecond},
		{ServerKey: key("slow"), Starting: true},
	}})
	if err != nil || len(rs) != 1 || rs[0].ServerID != "gopls" {
		t.Fatalf("Split = %+v, %v; want gopls's result", rs, err)
	}
	want := Answer{Servers: []string{"gopls"}, Errors: []string{"boom"}, Starting: []string{"slow"}, ServerTime: 7 * time.Millisecond}
	if diff := cmp.Diff(want, ans); diff != "" {
		t.Errorf("answer (-want +got):\n%s", diff)
	}
}
