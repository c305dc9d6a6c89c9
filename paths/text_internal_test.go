package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
)

// readAll reads a file that grew since its size was taken, and refuses
// one that grew past MaxFileSize.
func TestReadAllGrown(t *testing.T) {
	read := func(text string, size int64) ([]byte, error) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return readAll(f, size)
	}
	text := strings.Repeat("grown\n", 1000)
	if b, err := read(text, 10); err != nil || string(b) != text {
		t.Errorf("readAll of %d bytes taken as 10 = %d bytes, %v", len(text), len(b), err)
	}
	if _, err := read(strings.Repeat("x", MaxFileSize+1), 10); !errors.Is(err, messages.ErrFileTooLarge) {
		t.Errorf("readAll past the limit = %v, want ErrFileTooLarge", err)
	}
}
