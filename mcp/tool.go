package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/agentlsp/agentlsp/safetext"
)

// addTool registers a typed tool as sdk.AddTool does (the same schemas,
// the arguments validated against the input schema with its defaults
// applied, the answer as structured content and as text), with the
// standard library's JSON: the SDK's generic path decodes each call's
// arguments three times and validates the answer, each decode with a
// decoder that allocates 32 KiB, which was most of what a call cost on
// top of the language server. The answer is ours and is not validated
// again.
func addTool[In, Out any](srv *sdk.Server, t *sdk.Tool, h sdk.ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		s, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("mcp: %s input schema: %v", t.Name, err)) // a bug in In
		}
		t.InputSchema = s
	}
	if t.OutputSchema == nil {
		s, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("mcp: %s output schema: %v", t.Name, err)) // a bug in Out
		}
		t.OutputSchema = s
	}
	in := argsSchemaOf(t.InputSchema.(*jsonschema.Schema))
	srv.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := decodeArgs[In](req.Params.Arguments, in)
		if err != nil {
			return errorResult(fmt.Errorf("validating \"arguments\": %w", err)), nil
		}
		res, out, err := h(ctx, req, args)
		if err != nil {
			if wire, ok := err.(*jsonrpc.Error); ok {
				return nil, wire
			}
			return errorResult(err), nil
		}
		if res == nil {
			res = &sdk.CallToolResult{}
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, fmt.Errorf("marshaling output: %w", err)
		}
		res.StructuredContent = json.RawMessage(data)
		if res.Content == nil {
			res.Content = []sdk.Content{&sdk.TextContent{Text: string(data)}}
		}
		return res, nil
	})
}

// argsSchema is what an input schema says of a tool's arguments at the
// top level: the properties, those required, their enums and defaults.
// Types below the top level are the decoder's to check.
type argsSchema struct {
	known    map[string]bool
	names    string // the known properties, for errors
	required []string
	enums    map[string][]any
	defaults map[string]json.RawMessage
	integers map[string]bool // properties of type integer
}

func argsSchemaOf(s *jsonschema.Schema) *argsSchema {
	a := &argsSchema{known: map[string]bool{}, required: s.Required, enums: map[string][]any{},
		defaults: map[string]json.RawMessage{}, integers: map[string]bool{}}
	names := make([]string, 0, len(s.Properties))
	for name, p := range s.Properties {
		a.known[name] = true
		names = append(names, name)
		if len(p.Enum) > 0 {
			a.enums[name] = p.Enum
		}
		if len(p.Default) > 0 {
			a.defaults[name] = p.Default
		}
		if p.Type == "integer" {
			a.integers[name] = true
		}
	}
	slices.Sort(names)
	a.names = strings.Join(names, ", ")
	return a
}

// decodeArgs checks raw arguments against the schema (no unknown
// property, spelled exactly; the required ones present; enums kept),
// applies its defaults and decodes them.
func decodeArgs[In any](raw json.RawMessage, a *argsSchema) (In, error) {
	var args In
	m := map[string]json.RawMessage{}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && !bytes.Equal(trimmed, []byte("null")) {
		if err := json.Unmarshal(trimmed, &m); err != nil {
			return args, err
		}
	}
	for name, v := range m {
		if !a.known[name] {
			return args, fmt.Errorf("unexpected property %q (the properties are %s)", name, a.names)
		}
		if enum := a.enums[name]; enum != nil {
			var x any
			if err := json.Unmarshal(v, &x); err != nil || !slices.Contains(enum, x) {
				return args, fmt.Errorf("%s: %s is not one of %v", name, v, enum)
			}
		}
	}
	for _, name := range a.required {
		if _, ok := m[name]; !ok {
			return args, fmt.Errorf("missing property %q", name)
		}
	}
	data := raw
	for name := range a.integers {
		if v, ok := m[name]; ok {
			if n, ok := integral(v); ok {
				m[name], data = n, nil
			}
		}
	}
	for name, d := range a.defaults {
		if _, ok := m[name]; !ok {
			m[name], data = d, nil
		}
	}
	if data == nil {
		var err error
		if data, err = json.Marshal(m); err != nil {
			return args, err
		}
	}
	if len(m) == 0 {
		return args, nil
	}
	return args, json.Unmarshal(data, &args)
}

// integral returns a JSON number written with a fraction or an exponent
// (6.0, 6e0) as the integer it is, which JSON Schema's "integer" accepts
// and Go's decoder into an int does not: a Python client that computed a
// line as a float sends 6.0, and was told it "cannot unmarshal number
// 6.0". Other values, 6.5 among them, are left to the decoder to refuse.
func integral(v json.RawMessage) (json.RawMessage, bool) {
	if !bytes.ContainsAny(v, ".eE") {
		return nil, false
	}
	f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil, false
	}
	return json.RawMessage(strconv.FormatInt(int64(f), 10)), true
}

// errorResult is a tool error answer; its text is escaped as every text
// content is (textResult).
func errorResult(err error) *sdk.CallToolResult {
	res := sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: safetext.Escape(err.Error())}}}
	res.SetError(err)
	return &res
}
