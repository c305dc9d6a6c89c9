package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentlsp/agentlsp"
	"github.com/agentlsp/agentlsp/results"
)

// callJSON is a call hierarchy item in --json output: where it is
// declared and, for incoming and outgoing calls, where the calls are (in
// the caller's file for incoming calls, in the asked function's file for
// outgoing ones).
type callJSON struct {
	Name      string                    `json:"name"`
	Kind      string                    `json:"kind"`
	Detail    string                    `json:"detail,omitempty"`
	Location  agentlsp.EditorLocation   `json:"location"`
	CallSites []agentlsp.EditorLocation `json:"callSites,omitempty"`
}

// itemsJSON is prepareCallHierarchy's --json document.
type itemsJSON struct {
	results.Answer
	Items []callJSON `json:"items"`
}

// callsJSON is the --json document of incomingCalls and outgoingCalls.
type callsJSON struct {
	results.Answer
	Calls []callJSON `json:"calls"`
}

func opPrepareCallHierarchy(ctx context.Context, q *queryCall) (*result, error) {
	ans, err := q.sess.PrepareCallHierarchy(ctx, q.args.path, q.pos)
	if err != nil {
		return nil, err
	}
	doc := itemsJSON{Answer: ans.Answer, Items: []callJSON{}}
	res := &result{answer: ans.Answer, doc: &doc, none: "no call hierarchy item at this position"}
	for _, it := range ans.Items {
		c := callItem(q.ed, it)
		doc.Items = append(doc.Items, c)
		res.lines = append(res.lines, fmt.Sprintf("%s %s", c.Name, c.Location))
	}
	return res, nil
}

func opIncomingCalls(ctx context.Context, q *queryCall) (*result, error) {
	return calls(ctx, q, true)
}

func opOutgoingCalls(ctx context.Context, q *queryCall) (*result, error) {
	return calls(ctx, q, false)
}

// calls prepares the call hierarchy at the position and asks for the
// incoming or outgoing calls of every item there.
func calls(ctx context.Context, q *queryCall, incoming bool) (*result, error) {
	items, err := q.sess.PrepareCallHierarchy(ctx, q.args.path, q.pos)
	if err != nil {
		return nil, err
	}
	doc := callsJSON{Answer: items.Answer, Calls: []callJSON{}}
	res := &result{doc: &doc, none: "no calls found"}
	if len(items.Items) == 0 {
		res.none = "no call hierarchy item at this position"
	}
	for _, it := range items.Items {
		var ans *results.CallsAnswer
		if incoming {
			ans, err = q.sess.IncomingCalls(ctx, it)
		} else {
			ans, err = q.sess.OutgoingCalls(ctx, it)
		}
		if err != nil {
			return nil, err
		}
		doc.Answer = mergeAnswers(doc.Answer, ans.Answer)
		for _, call := range ans.Calls {
			c := callItem(q.ed, call.Item)
			sites := it
			if incoming {
				sites = call.Item
			}
			for _, r := range call.FromRanges {
				c.CallSites = append(c.CallSites, q.ed.LocationOf(sites.URI, sites.Path, r))
			}
			doc.Calls = append(doc.Calls, c)
			res.lines = append(res.lines, fmt.Sprintf("%s %s", c.Name, c.Location))
		}
	}
	res.answer = doc.Answer
	return res, nil
}

// callItem converts a call hierarchy item; its location is its name.
func callItem(ed *agentlsp.Editor, it results.CallItem) callJSON {
	c := callJSON{Name: it.Name, Kind: it.KindName, Detail: it.Detail,
		Location: ed.LocationOf(it.URI, it.Path, it.SelectionRange)}
	if c.Kind == "" {
		c.Kind = fmt.Sprintf("kind %d", it.Kind)
	}
	return c
}

// mergeAnswers combines the summaries of several requests.
func mergeAnswers(a, b results.Answer) results.Answer {
	out := results.Answer{Indexing: a.Indexing || b.Indexing}
	out.Servers = append(slices.Clone(a.Servers), b.Servers...)
	slices.Sort(out.Servers)
	out.Servers = slices.Compact(out.Servers)
	out.Errors = append(slices.Clone(a.Errors), b.Errors...)
	// A server still starting for one request may have answered the next.
	out.Starting = slices.DeleteFunc(append(slices.Clone(a.Starting), b.Starting...),
		func(s string) bool { return slices.Contains(out.Servers, s) })
	slices.Sort(out.Starting)
	out.Starting = slices.Compact(out.Starting)
	out.Unwatched = append(slices.Clone(a.Unwatched), b.Unwatched...)
	slices.Sort(out.Unwatched)
	out.Unwatched = slices.Compact(out.Unwatched)
	return out
}
