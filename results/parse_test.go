package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// jr is the JSON of an LSP range.
func jr(l1, c1, l2, c2 int) string {
	return fmt.Sprintf(`{"start":{"line":%d,"character":%d},"end":{"line":%d,"character":%d}}`, l1, c1, l2, c2)
}

// rng is a Range.
func rng(l1, c1, l2, c2 int) Range {
	return Range{Start: Position{Line: uint32(l1), Character: uint32(c1)}, End: Position{Line: uint32(l2), Character: uint32(c2)}}
}

const (
	mainURI = "file:///home/u/proj/main.go"
	mainGo  = "/home/u/proj/main.go"
)

// checkErr checks err against wantErr, a message ("" for no error) that
// must wrap ErrBadResult.
func checkErr(t *testing.T, call string, err error, wantErr string) bool {
	t.Helper()
	if wantErr == "" {
		if err != nil {
			t.Errorf("%s = %v, want no error", call, err)
		}
		return err == nil
	}
	if err == nil || err.Error() != wantErr || !errors.Is(err, ErrBadResult) {
		t.Errorf("%s = %v, want error %q wrapping ErrBadResult", call, err, wantErr)
	}
	return false
}

const bad = "agentlsp: unexpected result from the language server: "

func TestParseLocations(t *testing.T) {
	tests := []struct {
		name, raw string
		want      []Location
		wantErr   string
	}{
		{"null", "null", []Location{}, ""},
		{"empty", " [] \n", []Location{}, ""},
		{"no result", "", []Location{}, ""},
		{"gopls definition", `[{"uri":"` + mainURI + `","range":` + jr(5, 5, 5, 8) + `}]`,
			[]Location{{mainURI, mainGo, rng(5, 5, 5, 8)}}, ""},
		{"pylsp single location", `{"uri":"file:///w/app.py","range":` + jr(0, 4, 0, 9) + `}`,
			[]Location{{"file:///w/app.py", "/w/app.py", rng(0, 4, 0, 9)}}, ""},
		{"clangd location link", `[{"originSelectionRange":` + jr(9, 2, 9, 5) +
			`,"targetUri":"file:///w/src/a.cpp","targetRange":` + jr(3, 0, 7, 1) +
			`,"targetSelectionRange":` + jr(3, 5, 3, 8) + `}]`,
			[]Location{{"file:///w/src/a.cpp", "/w/src/a.cpp", rng(3, 5, 3, 8)}}, ""},
		{"link without selection range", `[{"targetUri":"file:///w/b.rs","targetRange":` + jr(1, 0, 4, 1) + `}]`,
			[]Location{{"file:///w/b.rs", "/w/b.rs", rng(1, 0, 4, 1)}}, ""},
		{"typescript references, escaped path", `[
			{"uri":"file:///w/my%20app/index.ts","range":` + jr(2, 9, 2, 14) + `},
			{"uri":"file:///w/my%20app/util.ts","range":` + jr(0, 16, 0, 21) + `}]`,
			[]Location{
				{"file:///w/my%20app/index.ts", "/w/my app/index.ts", rng(2, 9, 2, 14)},
				{"file:///w/my%20app/util.ts", "/w/my app/util.ts", rng(0, 16, 0, 21)},
			}, ""},
		{"mixed, non-file URI", `[{"uri":"jdt://contents/rt.jar/String.class","range":` + jr(1, 1, 1, 2) +
			`},{"targetUri":"file://localhost/w/c.go","targetSelectionRange":` + jr(0, 0, 0, 1) + `}]`,
			[]Location{
				{"jdt://contents/rt.jar/String.class", "", rng(1, 1, 1, 2)},
				{"file://localhost/w/c.go", "/w/c.go", rng(0, 0, 0, 1)},
			}, ""},
		{"a string", `"oops"`, nil, bad + `not a location or a list of them: "oops"`},
		{"no uri", `[{"range": {"start": {}}}]`, nil, bad + `location without uri or targetUri: {"range":{"start":{}}}`},
		{"null element", `[null]`, nil, bad + `location without uri or targetUri: null`},
		{"wrong type", `[{"uri": 5}]`, nil, bad + `location (uri: got JSON number): {"uri":5}`},
		{"bad range", `[{"uri":"file:///a","range":{"start":{"line":"3"}}}]`, nil,
			bad + `location (range.start.line: got JSON string): {"uri":"file:///a","range":{"start":{"line":"3"}}}`},
		{"truncated JSON", `[{"uri":`, nil, bad + `location list (unexpected end of JSON input): [{"uri":`},
	}
	for _, tt := range tests {
		got, err := ParseLocations(json.RawMessage(tt.raw))
		if checkErr(t, "ParseLocations("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseLocations(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

func TestBadResultQuote(t *testing.T) {
	raw := `  {"uri": 7, "pad": "x` + strings.Repeat("é", 60) + `"}`
	_, err := ParseLocations(json.RawMessage(raw))
	// 100 bytes of compacted JSON: 17 bytes, then 41 é (82 bytes); the
	// 42nd é would straddle the cut.
	want := bad + `location (uri: got JSON number): {"uri":7,"pad":"x` + strings.Repeat("é", 41) + "..."
	checkErr(t, "ParseLocations(long)", err, want)
}

func TestParseHover(t *testing.T) {
	r := rng(4, 1, 4, 8)
	tests := []struct {
		name, raw string
		want      *Hover
		wantErr   string
	}{
		{"null", "null", nil, ""},
		{"gopls markup", `{"contents":{"kind":"markdown","value":"` +
			"```go\\nfunc fmt.Println(a ...any) (n int, err error)\\n```\\n\\nPrintln formats.\\n" +
			`"},"range":` + jr(4, 1, 4, 8) + `}`,
			&Hover{Text: "```go\nfunc fmt.Println(a ...any) (n int, err error)\n```\n\nPrintln formats.", Range: &r}, ""},
		{"pyright markup", `{"contents":{"kind":"markdown","value":"` + "```python\\n(function) def greet(name: str) -> str\\n```" + `"}}`,
			&Hover{Text: "```python\n(function) def greet(name: str) -> str\n```"}, ""},
		{"pylsp marked strings", `{"contents":[{"language":"python","value":"greet(name: str) -> str"},"Say hello.\n"]}`,
			&Hover{Text: "```python\ngreet(name: str) -> str\n```\n\nSay hello."}, ""},
		{"plain string", `{"contents":"int x"}`, &Hover{Text: "int x"}, ""},
		{"one marked string", `{"contents":{"language":"cpp","value":"\n\n  int x;\n"}}`,
			&Hover{Text: "```cpp\n  int x;\n```"}, ""},
		{"backticks in code", `{"contents":{"language":"md","value":"` + "```" + `"}}`,
			&Hover{Text: "````md\n```\n````"}, ""},
		{"plaintext markup", `{"contents":{"kind":"plaintext","value":"x: int"}}`, &Hover{Text: "x: int"}, ""},
		{"empty parts", `{"contents":["", {"language":"go","value":""}, "doc"]}`, &Hover{Text: "doc"}, ""},
		{"empty string", `{"contents":""}`, nil, ""},
		{"empty array", `{"contents":[]}`, nil, ""},
		{"no contents", `{"range":{}}`, nil, bad + `hover without contents: {"range":{}}`},
		{"number contents", `{"contents":42}`, nil, bad + `hover contents (got JSON number): 42`},
		{"object without value", `{"contents":[{"language":"go"}]}`, nil, bad + `hover contents: {"language":"go"}`},
		{"an array", `[1]`, nil, bad + `hover (got JSON array): [1]`},
	}
	for _, tt := range tests {
		got, err := ParseHover(json.RawMessage(tt.raw))
		if checkErr(t, "ParseHover("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseHover(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

// goplsTree is a gopls documentSymbol answer.
var goplsTree = `[
 {"name":"Server","detail":"struct{...}","kind":23,"range":` + jr(4, 5, 7, 1) + `,"selectionRange":` + jr(4, 5, 4, 11) + `,
  "children":[{"name":"addr","detail":"string","kind":8,"range":` + jr(5, 1, 5, 12) + `,"selectionRange":` + jr(5, 1, 5, 5) + `}]},
 {"name":"main","detail":"func()","kind":12,"range":` + jr(9, 0, 11, 1) + `,"selectionRange":` + jr(9, 5, 9, 9) + `}]`

// pylspSymbols is a pylsp documentSymbol answer (SymbolInformation).
var pylspSymbols = `[
 {"name":"Greeter","containerName":null,"location":{"uri":"file:///w/app.py","range":` + jr(2, 0, 6, 0) + `},"kind":5},
 {"name":"greet","containerName":"Greeter","location":{"uri":"file:///w/app.py","range":` + jr(3, 4, 5, 0) + `},"kind":6}]`

func TestParseDocumentSymbols(t *testing.T) {
	tests := []struct {
		name, raw string
		want      []Symbol
		wantErr   string
	}{
		{"null", "null", []Symbol{}, ""},
		{"gopls tree", goplsTree, []Symbol{
			{Name: "Server", Detail: "struct{...}", Kind: 23, KindName: "struct", URI: mainURI, Path: mainGo,
				Range: rng(4, 5, 7, 1), SelectionRange: rng(4, 5, 4, 11), Children: []Symbol{
					{Name: "addr", Detail: "string", Kind: 8, KindName: "field", URI: mainURI, Path: mainGo,
						Range: rng(5, 1, 5, 12), SelectionRange: rng(5, 1, 5, 5)}}},
			{Name: "main", Detail: "func()", Kind: 12, KindName: "function", URI: mainURI, Path: mainGo,
				Range: rng(9, 0, 11, 1), SelectionRange: rng(9, 5, 9, 9)},
		}, ""},
		{"clangd, no selection range", `[{"name":"x","kind":13,"range":` + jr(1, 4, 1, 9) + `}]`, []Symbol{
			{Name: "x", Kind: 13, KindName: "variable", URI: mainURI, Path: mainGo, Range: rng(1, 4, 1, 9), SelectionRange: rng(1, 4, 1, 9)},
		}, ""},
		{"pylsp information", pylspSymbols, []Symbol{
			{Name: "Greeter", Kind: 5, KindName: "class", URI: "file:///w/app.py", Path: "/w/app.py",
				Range: rng(2, 0, 6, 0), SelectionRange: rng(2, 0, 6, 0)},
			{Name: "greet", Kind: 6, KindName: "method", ContainerName: "Greeter", URI: "file:///w/app.py", Path: "/w/app.py",
				Range: rng(3, 4, 5, 0), SelectionRange: rng(3, 4, 5, 0)},
		}, ""},
		{"no range", `[{"name":"x","kind":12}]`, nil, bad + `symbol without location or range: {"name":"x","kind":12}`},
		{"bad child", `[{"name":"x","kind":12,"range":{},"children":[{"name":"y"}]}]`, nil,
			bad + `symbol without location or range: {"name":"x","kind":12,"range":{},"children":[{"name":"y"}]}`},
		{"bad kind", `[{"name":"x","kind":"function"}]`, nil, bad + `symbol (kind: got JSON string): {"name":"x","kind":"function"}`},
	}
	for _, tt := range tests {
		got, err := ParseDocumentSymbols(json.RawMessage(tt.raw), mainURI)
		if checkErr(t, "ParseDocumentSymbols("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseDocumentSymbols(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

func TestParseWorkspaceSymbols(t *testing.T) {
	tests := []struct {
		name, raw string
		want      []Symbol
		wantErr   string
	}{
		{"null", "null", []Symbol{}, ""},
		{"gopls information", `[{"name":"Server","kind":23,"location":{"uri":"` + mainURI + `","range":` + jr(4, 5, 4, 11) +
			`},"containerName":"example.com/proj"}]`, []Symbol{
			{Name: "Server", Kind: 23, KindName: "struct", ContainerName: "example.com/proj", URI: mainURI, Path: mainGo,
				Range: rng(4, 5, 4, 11), SelectionRange: rng(4, 5, 4, 11)},
		}, ""},
		{"typescript workspace symbol, uri only", `[{"name":"greet","kind":12,"location":{"uri":"file:///w/src/a.ts"},"data":{"id":1}},
			{"name":"T","kind":26,"location":{"uri":"file:///w/src/b.ts","range":` + jr(0, 13, 0, 14) + `}}]`, []Symbol{
			{Name: "greet", Kind: 12, KindName: "function", URI: "file:///w/src/a.ts", Path: "/w/src/a.ts"},
			{Name: "T", Kind: 26, KindName: "type parameter", URI: "file:///w/src/b.ts", Path: "/w/src/b.ts",
				Range: rng(0, 13, 0, 14), SelectionRange: rng(0, 13, 0, 14)},
		}, ""},
		{"unknown kind", `[{"name":"z","kind":99,"location":{"uri":"file:///z"}}]`, []Symbol{
			{Name: "z", Kind: 99, URI: "file:///z", Path: "/z"},
		}, ""},
		{"document symbol shape", `[{"name":"x","kind":12,"range":{}}]`, nil,
			bad + `symbol without location or range: {"name":"x","kind":12,"range":{}}`},
		{"location without uri", `[{"name":"x","kind":12,"location":{}}]`, nil,
			bad + `symbol without location or range: {"name":"x","kind":12,"location":{}}`},
		{"a number", `3`, nil, bad + `not a symbol or a list of them: 3`},
	}
	for _, tt := range tests {
		got, err := ParseWorkspaceSymbols(json.RawMessage(tt.raw))
		if checkErr(t, "ParseWorkspaceSymbols("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseWorkspaceSymbols(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

// Call hierarchy items as gopls and clangd send them.
var (
	goplsItem = `{"name":"helper","kind":12,"tags":null,"detail":"example.com/proj • main.go","uri":"` + mainURI +
		`","range":` + jr(13, 0, 15, 1) + `,"selectionRange":` + jr(13, 5, 13, 11) + `}`
	clangdItem = `{"data":"5CA1AB1E","detail":"int add(int, int)","kind":12,"name":"add","uri":"file:///w/math.c",` +
		`"range":` + jr(1, 0, 3, 1) + `,"selectionRange":` + jr(1, 4, 1, 7) + `}`
	helper = CallItem{Name: "helper", Detail: "example.com/proj • main.go", Kind: 12, KindName: "function",
		URI: mainURI, Path: mainGo, Range: rng(13, 0, 15, 1), SelectionRange: rng(13, 5, 13, 11), Raw: json.RawMessage(goplsItem)}
	add = CallItem{Name: "add", Detail: "int add(int, int)", Kind: 12, KindName: "function", URI: "file:///w/math.c",
		Path: "/w/math.c", Range: rng(1, 0, 3, 1), SelectionRange: rng(1, 4, 1, 7),
		Data: json.RawMessage(`"5CA1AB1E"`), Raw: json.RawMessage(clangdItem)}
)

func TestParseCallItems(t *testing.T) {
	nullData := `{"name":"f","kind":12,"uri":"file:///f.py","range":` + jr(0, 0, 0, 1) + `,"data":null}`
	tests := []struct {
		name, raw string
		want      []CallItem
		wantErr   string
	}{
		{"null", "null", []CallItem{}, ""},
		{"gopls", "[" + goplsItem + "]", []CallItem{helper}, ""},
		{"clangd with data", "[ " + clangdItem + " ]", []CallItem{add}, ""},
		{"null data, no selection range", "[" + nullData + "]", []CallItem{{Name: "f", Kind: 12, KindName: "function",
			URI: "file:///f.py", Path: "/f.py", Range: rng(0, 0, 0, 1), SelectionRange: rng(0, 0, 0, 1),
			Raw: json.RawMessage(nullData)}}, ""},
		{"no uri", `[{"name":"f","range":{}}]`, nil, bad + `call hierarchy item without uri or range: {"name":"f","range":{}}`},
	}
	for _, tt := range tests {
		got, err := ParseCallItems(json.RawMessage(tt.raw))
		if checkErr(t, "ParseCallItems("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseCallItems(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

func TestParseCalls(t *testing.T) {
	incoming := `[{"from":` + goplsItem + `,"fromRanges":[` + jr(14, 1, 14, 4) + `,` + jr(14, 9, 14, 12) + `]}]`
	outgoing := `[{"to":` + clangdItem + `,"fromRanges":[]}, {"to":` + goplsItem + `}]`
	tests := []struct {
		name, raw string
		parse     func(json.RawMessage) ([]Call, error)
		want      []Call
		wantErr   string
	}{
		{"incoming null", "null", ParseIncomingCalls, []Call{}, ""},
		{"incoming gopls", incoming, ParseIncomingCalls,
			[]Call{{Item: helper, FromRanges: []Range{rng(14, 1, 14, 4), rng(14, 9, 14, 12)}}}, ""},
		{"outgoing clangd", outgoing, ParseOutgoingCalls,
			[]Call{{Item: add, FromRanges: []Range{}}, {Item: helper, FromRanges: []Range{}}}, ""},
		{"incoming read as outgoing", `[{"from":{"name":"f"},"fromRanges":[]}]`, ParseOutgoingCalls, nil,
			bad + `call without "to": {"from":{"name":"f"},"fromRanges":[]}`},
		{"bad item", `[{"from":{"name":"f","uri":"file:///f"}}]`, ParseIncomingCalls, nil,
			bad + `call hierarchy item without uri or range: {"name":"f","uri":"file:///f"}`},
		{"bad ranges", `[{"from":{},"fromRanges":{}}]`, ParseIncomingCalls, nil,
			bad + `call (fromRanges: got JSON object): {"from":{},"fromRanges":{}}`},
	}
	for _, tt := range tests {
		got, err := tt.parse(json.RawMessage(tt.raw))
		if checkErr(t, "Parse calls("+tt.name+")", err, tt.wantErr) {
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse calls(%s) (-want +got):\n%s", tt.name, diff)
			}
		}
	}
}

func TestResultsOwnTheirMemory(t *testing.T) {
	raw := []byte("[" + clangdItem + "]")
	items, err := ParseCallItems(raw)
	if err != nil {
		t.Fatal(err)
	}
	single := []byte(goplsItem)
	one, err := ParseCallItems(single)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		raw[i] = 'x'
	}
	for i := range single {
		single[i] = 'x'
	}
	if diff := cmp.Diff([]CallItem{add, helper}, append(items, one...)); diff != "" {
		t.Errorf("items changed with the input (-want +got):\n%s", diff)
	}
}

func TestResultsJSON(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{Location{mainURI, mainGo, rng(1, 2, 3, 4)},
			`{"uri":"` + mainURI + `","path":"` + mainGo + `","range":` + jr(1, 2, 3, 4) + `}`},
		{Hover{Text: "x"}, `{"text":"x"}`},
		{Symbol{Name: "f", Kind: 12, KindName: "function", URI: "untitled:1"},
			`{"name":"f","kind":12,"kindName":"function","uri":"untitled:1","range":` + jr(0, 0, 0, 0) +
				`,"selectionRange":` + jr(0, 0, 0, 0) + `}`},
		{Call{Item: CallItem{Name: "g", URI: "u", Raw: json.RawMessage(`{"name":"g"}`)}, FromRanges: []Range{}},
			`{"item":{"name":"g","kind":0,"kindName":"","uri":"u","range":` + jr(0, 0, 0, 0) +
				`,"selectionRange":` + jr(0, 0, 0, 0) + `,"raw":{"name":"g"}},"fromRanges":[]}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.v)
		if err != nil || string(got) != tt.want {
			t.Errorf("json.Marshal(%+v) = %s, %v, want %s", tt.v, got, err, tt.want)
		}
	}
}

func TestSymbolKindName(t *testing.T) {
	tests := map[int]string{0: "", 1: "file", 5: "class", 12: "function", 22: "enum member", 23: "struct",
		26: "type parameter", 27: "", -1: ""}
	for kind, want := range tests {
		if got := SymbolKindName(kind); got != want {
			t.Errorf("SymbolKindName(%d) = %q, want %q", kind, got, want)
		}
	}
}
