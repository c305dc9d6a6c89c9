package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/paths"
	"github.com/agentlsp/agentlsp/textpos"
)

const querySynopsis = `query [flags] OP FILE:LINE:COL
       agentlsp query [flags] OP FILE:LINE --symbol NAME
       agentlsp query [flags] documentSymbol FILE
       agentlsp query [flags] workspaceSymbol --query Q`

const queryAbout = `
Query asks the language servers of a file one navigation question and prints
the answer. LINE and COL are 1-based, COL counted in characters, as editors
show them; with --symbol, the column is that of NAME's first whole-word
occurrence on LINE (COL may be left out).

Operations (the MCP tool's names are accepted too):
  definition            where the symbol is defined (goToDefinition)
  references            every reference to the symbol, with its declaration (findReferences)
  implementation        implementations of an interface or method (goToImplementation)
  hover                 the symbol's type and documentation
  documentSymbol        the symbols of FILE, as an outline
  workspaceSymbol       the workspace's symbols matching --query
  prepareCallHierarchy  the call hierarchy items at the position
  incomingCalls         the functions that call the one at the position
  outgoingCalls         the functions the one at the position calls

Locations print as path:line:col (paths relative to the workspace), symbols
as "kind name path:line:col" indented by nesting, calls and call hierarchy
items as "name path:line:col" (where the function is declared). --json
prints a JSON document instead.

Exit status: 0 success (also when nothing was found), 2 usage error (bad
operation, malformed or out-of-range position, workspaceSymbol without
--query), 3 the query failed: no server answered, also when the servers
asked were still starting (named on stderr; ask again shortly).`

// opKind is what an operation takes.
type opKind int

const (
	atPosition  opKind = iota // FILE:LINE:COL
	inFile                    // FILE
	inWorkspace               // no file; --query
)

// queryOp is one operation.
type queryOp struct {
	kind opKind
	do   func(ctx context.Context, q *queryCall) (*result, error)
}

// queryOps are the operations by name, the MCP tool's names included.
var queryOps = map[string]queryOp{
	"definition":           {atPosition, opDefinition},
	"goToDefinition":       {atPosition, opDefinition},
	"references":           {atPosition, opReferences},
	"findReferences":       {atPosition, opReferences},
	"implementation":       {atPosition, opImplementation},
	"goToImplementation":   {atPosition, opImplementation},
	"hover":                {atPosition, opHover},
	"documentSymbol":       {inFile, opDocumentSymbol},
	"workspaceSymbol":      {inWorkspace, opWorkspaceSymbol},
	"prepareCallHierarchy": {atPosition, opPrepareCallHierarchy},
	"incomingCalls":        {atPosition, opIncomingCalls},
	"outgoingCalls":        {atPosition, opOutgoingCalls},
}

// queryArgs are query's parsed flags and arguments.
type queryArgs struct {
	op        string
	path      string
	line, col int // 1-based; col 0 when --symbol stands for it
	symbol    string
	query     string
	json      bool
}

// queryCall is one query being answered.
type queryCall struct {
	args queryArgs
	abs  string // args.path, absolute
	sess *agentlsp.Session
	ed   *agentlsp.Editor
	pos  agentlsp.Position // the LSP position, for atPosition operations
}

// runQuery is the query subcommand.
func runQuery(ctx context.Context, args []string, std stdio) error {
	fs := newFlagSet("query", querySynopsis, queryAbout)
	fs.sharedFlag()
	var qa queryArgs
	fs.StringVar(&qa.symbol, "symbol", "", "place the column on the first whole-word occurrence of `NAME` on LINE")
	fs.StringVar(&qa.query, "query", "", "search workspaceSymbol for `Q`")
	fs.BoolVar(&qa.json, "json", false, "print a JSON document instead of text")
	pos, err := fs.parse(args, std)
	if err != nil {
		return err
	}
	if err := qa.parsePositional(pos); err != nil {
		return usageErrorf("query", "%v", err)
	}
	rt, stop, err := startRuntime(ctx, fs.global, std, func(c *agentlsp.Config) { c.NoWatch = true })
	if err != nil {
		return err
	}
	defer stop()
	return query(ctx, rt, qa, std)
}

// parsePositional checks OP and its FILE or FILE:LINE:COL argument.
func (qa *queryArgs) parsePositional(pos []string) error {
	if len(pos) == 0 {
		return errors.New("no OP given")
	}
	qa.op = pos[0]
	op, ok := queryOps[qa.op]
	if !ok {
		return fmt.Errorf("unknown operation %q: want one of %s", qa.op, opNames())
	}
	pos = pos[1:]
	switch {
	case op.kind == inWorkspace && len(pos) > 0:
		return fmt.Errorf("%s takes no FILE (use --query Q), got %q", qa.op, pos[0])
	case op.kind == inWorkspace && strings.TrimSpace(qa.query) == "":
		return fmt.Errorf("%s needs --query Q: a name or part of one", qa.op)
	case op.kind == inWorkspace:
		return nil
	case qa.query != "":
		return fmt.Errorf("--query is for workspaceSymbol only")
	case len(pos) != 1 && op.kind == inFile:
		return fmt.Errorf("%s takes one FILE, got %d arguments", qa.op, len(pos))
	case len(pos) != 1:
		return fmt.Errorf("%s takes one FILE:LINE:COL, got %d arguments", qa.op, len(pos))
	case op.kind == inFile:
		if qa.symbol != "" {
			return fmt.Errorf("--symbol is for operations at a position, not %s", qa.op)
		}
		qa.path = paths.Given(pos[0]) // a file:// URI names its path
		return nil
	}
	var err error
	qa.path, qa.line, qa.col, err = parseFilePos(pos[0], qa.symbol != "")
	return err
}

// parseFilePos parses FILE:LINE:COL, or FILE:LINE when colOptional. The
// path may itself contain colons.
func parseFilePos(s string, colOptional bool) (path string, line, col int, err error) {
	bad := fmt.Errorf("malformed position %q: want FILE:LINE:COL with a 1-based line and column", s)
	parts := strings.Split(s, ":")
	nums := 0
	for i := len(parts) - 1; i >= 1 && nums < 2; i-- {
		if _, err := strconv.Atoi(parts[i]); err != nil {
			break
		}
		nums++
	}
	if nums == 1 && !colOptional || nums == 0 {
		return "", 0, 0, bad
	}
	n := len(parts) - nums
	path = strings.Join(parts[:n], ":")
	line, _ = strconv.Atoi(parts[n])
	if nums == 2 {
		col, _ = strconv.Atoi(parts[n+1])
	} else {
		col = 1 // --symbol places the column
	}
	if path == "" || line < 1 || col < 1 {
		return "", 0, 0, bad
	}
	return path, line, col, nil
}

// opNames lists the canonical operation names.
func opNames() string {
	return "definition, references, implementation, hover, documentSymbol, workspaceSymbol, " +
		"prepareCallHierarchy, incomingCalls or outgoingCalls"
}

// query answers qa and prints the answer.
func query(ctx context.Context, rt *agentlsp.Runtime, qa queryArgs, std stdio) error {
	q := &queryCall{args: qa, abs: qa.path, sess: rt.Session("cli"), ed: rt.Editor()}
	if qa.path != "" && !filepath.IsAbs(qa.path) {
		q.abs = filepath.Join(rt.Workspace(), qa.path)
	}
	op := queryOps[qa.op]
	if op.kind == atPosition {
		pos, err := q.ed.Position(qa.path, qa.line, qa.col, qa.symbol)
		if err != nil {
			return positionError(err)
		}
		q.pos = pos
	}
	var res *result
	var err error
	withProgress(rt, std.errOut, func() { res, err = op.do(ctx, q) })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return failure(err)
	}
	if qa.json {
		err = res.writeJSON(std.out)
	} else {
		err = res.writeText(std.out, std.errOut)
	}
	if err != nil {
		return failure(err)
	}
	return res.status()
}

// positionError is a usage error for a position outside the file or a
// symbol not on its line, a failure for anything else (a bad path).
func positionError(err error) error {
	for _, kind := range []error{textpos.ErrPastEnd, textpos.ErrNegative, textpos.ErrMidCharacter, textpos.ErrSymbolNotFound} {
		if errors.Is(err, kind) {
			msg := strings.Replace(trimPrefix(err.Error()), "textpos: ", "", 1)
			return usageErrorf("query", "%s", msg)
		}
	}
	return failure(err)
}
