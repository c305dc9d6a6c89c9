package transport

import (
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"go.lsp.dev/jsonrpc2"
)

// serve answers a request from the server on the reader: it never blocks
// (the answer is queued on the outbox) and recovers a panic, answering it
// as an internal error. Requests that change client state are passed on
// to OnEvent after they were answered.
func (c *Conn) serve(m *incoming) {
	replied := false
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("transport: handler panic", "method", m.method, "panic", r)
			if !replied {
				c.queueReply(m.id, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "agentlsp: %v", r))
			}
		}
	}()
	result, rerr, observed := c.answer(m.method, m.params)
	var raw json.RawMessage
	if rerr == nil {
		var err error
		if raw, err = json.Marshal(result); err != nil {
			rerr = jsonrpc2.Errorf(jsonrpc2.InternalError, "agentlsp: %v", err)
		}
	}
	c.queueReply(m.id, raw, rerr)
	replied = true
	if observed {
		c.event(m.method, m.params)
	}
}

// event hands a notification (or an observed request) to OnEvent, which
// must not block; a panic in it is recovered and logged.
func (c *Conn) event(method string, params json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("transport: event callback panic", "method", method, "panic", r)
		}
	}()
	c.opts.OnEvent(method, params)
}

// queueReply writes the answer to a server request on the writer.
func (c *Conn) queueReply(id jsonrpc2.ID, result json.RawMessage, err error) {
	_ = c.out.push(op{
		run: func() {
			data, encErr := encodeResponse(id, result, err)
			if encErr == nil {
				_, encErr = c.stream.writeFrame(c.life, data)
			}
			if encErr != nil {
				c.end(fmt.Errorf("%w: reply: %v", ErrWriteFailed, encErr))
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
