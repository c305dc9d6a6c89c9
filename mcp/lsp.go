package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/results"
)

// Operation is what the lsp tool asks the language servers.
type Operation string

// The lsp tool's operations.
const (
	OpDefinition      Operation = "goToDefinition"
	OpReferences      Operation = "findReferences"
	OpHover           Operation = "hover"
	OpDocumentSymbol  Operation = "documentSymbol"
	OpWorkspaceSymbol Operation = "workspaceSymbol"
	OpImplementation  Operation = "goToImplementation"
	OpPrepareCalls    Operation = "prepareCallHierarchy"
	OpIncomingCalls   Operation = "incomingCalls"
	OpOutgoingCalls   Operation = "outgoingCalls"
)

// Operations lists the lsp tool's operations, in the order of its schema.
var Operations = []Operation{OpDefinition, OpReferences, OpHover, OpDocumentSymbol, OpWorkspaceSymbol,
	OpImplementation, OpPrepareCalls, OpIncomingCalls, OpOutgoingCalls}

// LSPInput is the lsp tool's input.
type LSPInput struct {
	Operation Operation `json:"operation" jsonschema:"what to ask: goToDefinition, findReferences (declaration included), hover, documentSymbol (outline of filePath), workspaceSymbol (search by query), goToImplementation, prepareCallHierarchy, incomingCalls (callers), outgoingCalls (callees)"`
	FilePath  string    `json:"filePath,omitempty" jsonschema:"the file, relative to the workspace or absolute; needed by every operation but workspaceSymbol (where it narrows the search to that file's language servers and project)"`
	Line      int       `json:"line,omitempty" jsonschema:"1-based line number, as editors show it; needed by every operation but documentSymbol and workspaceSymbol"`
	Character int       `json:"character,omitempty" jsonschema:"1-based column counted in characters, as editors show it; not needed when symbol is given"`
	Symbol    string    `json:"symbol,omitempty" jsonschema:"a name on that line to point at instead of a column (its first whole-word occurrence); more reliable than counting characters"`
	Query     string    `json:"query,omitempty" jsonschema:"what to search for, for workspaceSymbol (a name or part of one)"`
}

// LSPOutput is the lsp tool's structured answer. Paths are relative to
// the workspace (absolute outside it); lines and columns are 1-based and
// count characters. Only the fields of the operation are set.
type LSPOutput struct {
	Operation Operation `json:"operation"`
	// Servers that answered; Indexing says one was still starting or
	// indexing (the answer may be incomplete); Errors of servers that
	// failed while others answered.
	Servers  []string `json:"servers"`
	Indexing bool     `json:"indexing,omitempty"`
	Errors   []string `json:"errors,omitempty"`
	// Starting names the servers asked that were still starting when the
	// answer was due (workspaceSymbol): ask again shortly.
	Starting []string `json:"starting,omitempty"`
	// Unwatched names the files of the answer that lie in directories
	// agentlsp does not watch for changes (node_modules, vendor, .venv, a
	// build's output): a change made there since the server read them is
	// not seen.
	Unwatched []string `json:"unwatched,omitempty"`
	// Locations answer goToDefinition, findReferences (declaration
	// included) and goToImplementation, sorted by path and position.
	Locations []agentlsp.EditorLocation `json:"locations,omitempty"`
	// Hover answers hover.
	Hover *Hover `json:"hover,omitempty"`
	// Symbols answer documentSymbol (the server's tree flattened in
	// order, Depth giving the nesting) and workspaceSymbol (in the
	// server's order, best match first).
	Symbols []Symbol `json:"symbols,omitempty"`
	// Items answer prepareCallHierarchy, and are the items whose calls
	// incomingCalls and outgoingCalls list.
	Items []CallItem `json:"items,omitempty"`
	// Calls answer incomingCalls and outgoingCalls, sorted by their first
	// call site.
	Calls []Call `json:"calls,omitempty"`
	// More counts the results left out beyond MaxResults.
	More int `json:"more,omitempty"`
}

// ServerTimeMeta is the _meta key of an lsp answer's server time: the
// milliseconds the language servers themselves took (from each request
// handed to a server's connection to its answer read back, summed over
// the requests of the call). The rest of the call is agentlsp's and the
// MCP transport's, which is what bench/cmd/mcpbench reports.
const ServerTimeMeta = "agentlsp/serverMs"

// MaxResults bounds the locations, symbols or calls of one answer.
const MaxResults = 100

// Hover is hover text (Markdown) and the range it applies to.
type Hover struct {
	Text  string                   `json:"text"`
	Range *agentlsp.EditorLocation `json:"range,omitempty"`
}

// Symbol is a document or workspace symbol: Location is its name, Range
// its whole declaration, Depth its nesting in a document outline.
type Symbol struct {
	Name      string                  `json:"name"`
	Kind      string                  `json:"kind"`
	Detail    string                  `json:"detail,omitempty"`
	Container string                  `json:"container,omitempty"`
	Depth     int                     `json:"depth,omitempty"`
	Location  agentlsp.EditorLocation `json:"location"`
	Range     agentlsp.EditorLocation `json:"range"`
}

// CallItem is a function or method in a call hierarchy; Location is its
// name.
type CallItem struct {
	Name     string                  `json:"name"`
	Kind     string                  `json:"kind"`
	Detail   string                  `json:"detail,omitempty"`
	Location agentlsp.EditorLocation `json:"location"`
}

// Call is From calling To at Sites (in From's file, sorted). For
// incomingCalls To is the asked item; for outgoingCalls, From is.
type Call struct {
	From  CallItem                  `json:"from"`
	To    CallItem                  `json:"to"`
	Sites []agentlsp.EditorLocation `json:"sites"`
}

// lspTool describes the lsp tool, its input schema with the operations as
// an enum.
func lspTool() *sdk.Tool {
	ops := make([]any, len(Operations))
	for i, op := range Operations {
		ops[i] = string(op)
	}
	schema, err := jsonschema.For[LSPInput](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[Operation](): {Type: "string", Enum: ops},
	}})
	if err != nil {
		panic(fmt.Sprintf("mcp: lsp input schema: %v", err)) // a bug in LSPInput
	}
	return &sdk.Tool{
		Name:  "lsp",
		Title: "Code navigation",
		Description: "Ask the workspace's language servers about code: where a symbol is defined, its references, " +
			"its type and documentation (hover), the outline of a file, a workspace-wide symbol search, " +
			"the implementations of an interface or method, and who calls a function or what it calls. " +
			"Lines and characters are 1-based; give symbol to point at a name on the line instead of a character. " +
			"Answers name files relative to the workspace as path:line:column.",
		InputSchema: schema,
		Annotations: readOnly("Code navigation"),
	}
}

// lsp handles a call of the lsp tool.
func (t *tools) lsp(ctx context.Context, _ *sdk.CallToolRequest, in LSPInput) (*sdk.CallToolResult, LSPOutput, error) {
	v := newView(t.rt)
	out, err := t.navigate(ctx, v, in)
	if err != nil {
		return nil, LSPOutput{}, fmt.Errorf("%s: %w", in.Operation, explain(ctx, err, t.timeout))
	}
	res := textResult(v.render(out, in))
	res.Meta = sdk.Meta{ServerTimeMeta: float64(v.serverTime.Microseconds()) / 1000}
	return res, out, nil
}

// maxQuery bounds a workspace symbol query: a name, not a file's worth of
// text to send to every server and echo in the answer.
const maxQuery = 1024

// navigate runs one operation and converts its answer.
func (t *tools) navigate(ctx context.Context, v *view, in LSPInput) (LSPOutput, error) {
	s := t.session
	switch in.Operation {
	case OpWorkspaceSymbol:
		if strings.TrimSpace(in.Query) == "" {
			return LSPOutput{}, fmt.Errorf("%w: query is required for workspaceSymbol (a name or part of one)", ErrBadInput)
		}
		if n := utf8.RuneCountInString(in.Query); n > maxQuery {
			return LSPOutput{}, fmt.Errorf("%w: query is %d characters; a name or part of one is at most %d", ErrBadInput, n, maxQuery)
		}
		var narrow []string
		if in.FilePath != "" {
			narrow = append(narrow, in.FilePath) // only that file's servers
		}
		ans, err := s.WorkspaceSymbols(ctx, in.Query, narrow...)
		return v.symbols(in.Operation, ans, err)
	case OpDocumentSymbol:
		path, err := t.file(in)
		if err != nil {
			return LSPOutput{}, err
		}
		ans, err := s.DocumentSymbols(ctx, path)
		return v.symbols(in.Operation, ans, err)
	}
	if !knownOperation(in.Operation) {
		return LSPOutput{}, fmt.Errorf("%w %q: use one of %s", ErrUnknownOperation, in.Operation, operationList())
	}
	path, pos, err := t.position(v, in)
	if err != nil {
		return LSPOutput{}, err
	}
	return t.atPosition(ctx, v, in.Operation, path, pos)
}

// atPosition runs an operation that needs a position.
func (t *tools) atPosition(ctx context.Context, v *view, op Operation, path string, pos agentlsp.Position) (LSPOutput, error) {
	s := t.session
	switch op {
	case OpDefinition:
		ans, err := s.Definition(ctx, path, pos)
		return v.locations(op, ans, err)
	case OpReferences:
		ans, err := s.References(ctx, path, pos)
		return v.locations(op, ans, err)
	case OpImplementation:
		ans, err := s.Implementation(ctx, path, pos)
		return v.locations(op, ans, err)
	case OpHover:
		ans, err := s.Hover(ctx, path, pos)
		return v.hover(t.abs(path), ans, err)
	}
	ans, err := s.PrepareCallHierarchy(ctx, path, pos)
	if err != nil || op == OpPrepareCalls {
		return v.items(op, ans, err)
	}
	return t.calls(ctx, v, op, ans)
}

// calls asks for the incoming or outgoing calls of every prepared item.
func (t *tools) calls(ctx context.Context, v *view, op Operation, items *results.CallItemsAnswer) (LSPOutput, error) {
	out, _ := v.items(op, items, nil)
	out.Calls = []Call{}
	for _, item := range items.Items {
		get := t.session.IncomingCalls
		if op == OpOutgoingCalls {
			get = t.session.OutgoingCalls
		}
		ans, err := get(ctx, item)
		if err != nil {
			return LSPOutput{}, err
		}
		v.merge(&out, ans.Answer)
		for _, c := range ans.Calls {
			out.Calls = append(out.Calls, v.call(op, item, c))
		}
	}
	out.Calls = mergeCalls(out.Calls)
	slices.SortStableFunc(out.Calls, compareCalls)
	out.Calls = capped(&out, out.Calls)
	return out, nil
}

// file checks that the input names a file and returns the path as given:
// the runtime resolves it (relative to the workspace, or absolute) and its
// errors quote it as the agent wrote it.
func (t *tools) file(in LSPInput) (string, error) {
	if strings.TrimSpace(in.FilePath) == "" {
		return "", fmt.Errorf("%w: filePath is required for %s", ErrBadInput, in.Operation)
	}
	return in.FilePath, nil
}

// abs returns a path the agent gave as an absolute path.
func (t *tools) abs(path string) string {
	path = paths.Given(path) // a file:// URI names its path
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(t.rt.Workspace(), path)
}

// position converts the input's 1-based line and character (or symbol)
// to an LSP position in its file, through the call's view (which reads the
// file once for the call).
func (t *tools) position(v *view, in LSPInput) (string, agentlsp.Position, error) {
	path, err := t.file(in)
	if err != nil {
		return "", agentlsp.Position{}, err
	}
	if in.Line < 1 {
		return "", agentlsp.Position{}, fmt.Errorf("%w: line is required for %s and is 1-based (got %d)", ErrBadInput, in.Operation, in.Line)
	}
	if in.Symbol == "" && in.Character < 1 {
		return "", agentlsp.Position{}, fmt.Errorf("%w: character is required for %s and is 1-based (got %d), or give symbol to name a symbol on line %d",
			ErrBadInput, in.Operation, in.Character, in.Line)
	}
	pos, err := v.ed.Position(path, in.Line, in.Character, in.Symbol)
	return path, pos, err
}

func knownOperation(op Operation) bool {
	for _, o := range Operations {
		if o == op {
			return true
		}
	}
	return false
}

func operationList() string {
	names := make([]string, len(Operations))
	for i, op := range Operations {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}
