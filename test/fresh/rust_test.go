package fresh

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"slices"
	"strconv"
	"testing"

	"github.com/agentlsp/agentlsp/messages"
	"github.com/agentlsp/agentlsp/test/testenv"
)

// rustFiles is a crate that uses nothing of the standard library (the
// machines' rust-analyzer has no rust-src to read it from). When util.rs
// makes first return a reference into the bag, main.rs moves the bag while
// it is borrowed: an error only the borrow checker, run by cargo check,
// reports.
var rustFiles = map[string]string{
	"Cargo.toml":  "[package]\nname = \"bag\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
	"src/util.rs": rustOwned,
	"src/main.rs": `mod util;

pub struct Bag {
    pub n: i32,
}

fn consume(_b: Bag) {}

fn show<T>(_t: T) {}

fn main() {
    let b = Bag { n: 1 };
    let f = util::first(&b);
    consume(b);
    show(f);
}
`,
}

const (
	rustOwned    = "pub fn first(b: &crate::Bag) -> i32 {\n    b.n\n}\n"
	rustBorrowed = "pub fn first(b: &crate::Bag) -> &i32 {\n    &b.n\n}\n"
)

// TestRustBorrowErrorsAgreeWithCargoCheck: rust-analyzer reports
// borrow-checker errors from the cargo check it runs after it starts and on
// save, not from its own analysis. util.rs changes on disk, main.rs is
// asked about, and the answer is compared with `cargo check`'s errors in
// main.rs each round: the move of a borrowed value comes and goes with
// util.rs. agentlsp answered fresh and clean before it saved and waited
// for the check (config CheckOnSave).
func TestRustBorrowErrorsAgreeWithCargoCheck(t *testing.T) {
	testenv.ServerBinary(t, "rust-analyzer")
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		t.Fatalf("cargo is not on PATH: rust-analyzer and this test's oracle need a Rust toolchain (rustup): %v", err)
	}
	ws := workspace(t, rustFiles)
	s := start(t, ws).Session("agent")
	broke := false
	for round, util := range []string{rustOwned, rustBorrowed, rustOwned, rustBorrowed} {
		write(t, ws, "src/util.rs", util)
		r, _ := freshDiagnostics(t, s, "src/main.rs")
		var got []string
		for _, d := range r.Diagnostics {
			if d.Severity == messages.SeverityError {
				got = append(got, strconv.Itoa(int(d.Range.Start.Line)+1)+":"+strconv.Itoa(int(d.Range.Start.Character)+1)+" "+d.Code)
			}
		}
		slices.Sort(got)
		want := cargoErrors(t, cargo, ws, "src/main.rs")
		if !slices.Equal(got, want) {
			t.Errorf("round %d: main.rs has errors %q, cargo check says %q", round, got, want)
		}
		broke = broke || len(want) > 0
	}
	if !broke {
		t.Fatal("cargo check found no error in any round: the test checks nothing")
	}
}

// cargoErrors runs cargo check in ws (its own target directory) and lists
// the errors at their primary spans in file, as "line:column code".
func cargoErrors(t *testing.T, cargo, ws, file string) []string {
	t.Helper()
	cmd := exec.Command(cargo, "check", "--quiet", "--offline", "--message-format=json", "--target-dir", "target/oracle")
	cmd.Dir = ws
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("cargo check: %v", err)
	}
	var errs []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			Reason  string `json:"reason"`
			Message struct {
				Level string `json:"level"`
				Code  *struct {
					Code string `json:"code"`
				} `json:"code"`
				Spans []struct {
					File    string `json:"file_name"`
					Line    int    `json:"line_start"`
					Column  int    `json:"column_start"`
					Primary bool   `json:"is_primary"`
				} `json:"spans"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || m.Reason != "compiler-message" || m.Message.Level != "error" || m.Message.Code == nil {
			continue
		}
		for _, sp := range m.Message.Spans {
			if sp.Primary && sp.File == file {
				errs = append(errs, strconv.Itoa(sp.Line)+":"+strconv.Itoa(sp.Column)+" "+m.Message.Code.Code)
			}
		}
	}
	slices.Sort(errs)
	return errs
}
