package transport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"go.lsp.dev/jsonrpc2"
)

// handle is the jsonrpc2 handler for traffic from the server. It runs on
// the read loop, so it never blocks: answers are queued on the outbox and
// the event callback must not block either. A panic is recovered and, for
// a request, answered as an internal error.
func (c *Conn) handle(_ context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
	method, params := req.Method(), req.Params()
	_, isCall := req.(*jsonrpc2.Call)
	replied := false
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("transport: handler panic", "method", method, "panic", r)
			if isCall && !replied {
				c.queueReply(reply, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentlsp: %v", r))
			}
			err = nil
		}
	}()
	if !isCall {
		c.opts.OnEvent(method, params)
		return nil
	}
	result, rerr, observed := c.answer(method, params)
	c.queueReply(reply, result, rerr)
	replied = true
	if observed {
		c.opts.OnEvent(method, params)
	}
	return nil
}

// queueReply writes the reply on the writer goroutine.
func (c *Conn) queueReply(reply jsonrpc2.Replier, result any, err error) {
	_ = c.out.push(op{
		run: func() {
			if werr := reply(c.life, result, err); werr != nil {
				c.end(fmt.Errorf("%w: reply: %v", ErrWriteFailed, werr))
			}
		},
		abort: func(error) {},
	})
}

// answer computes the reply to a server request; observed says whether the
// request is also passed on as an event.
func (c *Conn) answer(method string, params json.RawMessage) (result any, err error, observed bool) {
	switch method {
	case "workspace/configuration":
		res, err := c.configuration(params)
		return res, err, false
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create":
		return nil, nil, true
	case "workspace/workspaceFolders":
		folders := c.opts.WorkspaceFolders
		if folders == nil {
			folders = []protocol.WorkspaceFolder{}
		}
		return folders, nil, false
	case "workspace/applyEdit":
		return map[string]any{
			"applied":       false,
			"failureReason": "agentlsp does not apply edits from language servers",
		}, nil, false
	case "window/showMessageRequest":
		return nil, nil, false
	}
	if strings.HasPrefix(method, "workspace/") && strings.HasSuffix(method, "/refresh") {
		return nil, nil, true
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method), false
}

// configuration answers workspace/configuration: one result per item, the
// settings value at the item's dotted section, an empty object when absent
// (servers such as the CSS server fail on null).
func (c *Conn) configuration(params json.RawMessage) ([]any, error) {
	var p struct {
		Items []struct {
			ScopeURI string `json:"scopeUri"`
			Section  string `json:"section"`
		} `json:"items"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workspace/configuration: %v", err)
	}
	out := make([]any, len(p.Items))
	for i, it := range p.Items {
		out[i] = Section(c.opts.Settings, it.Section)
	}
	return out, nil
}

// Section returns the value at a dotted section of settings ("gopls",
// "python.analysis"), or an empty object when there is none. Settings may
// hold the section as nested objects or as a literal dotted key.
func Section(settings map[string]any, section string) any {
	if section == "" {
		if settings == nil {
			return map[string]any{}
		}
		return settings
	}
	if v, ok := settings[section]; ok {
		return v
	}
	var cur any = settings
	for _, part := range strings.Split(section, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return map[string]any{}
		}
		if cur, ok = m[part]; !ok {
			return map[string]any{}
		}
	}
	if cur == nil {
		return map[string]any{}
	}
	return cur
}
