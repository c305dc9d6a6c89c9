package codec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os/exec"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/google/go-cmp/cmp"

	"github.com/agentlsp/agentlsp/messages"
)

// roundTrip encodes and decodes msg.
func roundTrip(t *testing.T, msg any) any {
	t.Helper()
	b, name, err := Marshal(msg)
	if err != nil {
		t.Fatalf("Marshal(%T) = %v", msg, err)
	}
	out, err := Unmarshal(name, b)
	if err != nil {
		t.Fatalf("Unmarshal(%s, %s) = %v", name, b, err)
	}
	return out
}

// errText compares errors by text: decoded sentinels are the same
// variables, other errors are new values.
var errText = cmp.Comparer(func(a, b error) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Error() == b.Error()
})

// TestEveryMessageRoundTrips fills a value of every registered type (and a
// pointer to it) with data in every field and checks that it comes back
// equal: the codec is generic over fields, so new fields need no code.
func TestEveryMessageRoundTrips(t *testing.T) {
	for _, typ := range messageTypes {
		v := reflect.New(typ)
		fill(v.Elem(), 0)
		for _, msg := range []any{v.Interface(), v.Elem().Interface()} {
			got := roundTrip(t, msg)
			if diff := cmp.Diff(msg, got, errText); diff != "" {
				t.Errorf("%T round trip (-sent +got):\n%s", msg, diff)
			}
		}
	}
}

// fill sets every exported field reachable from v to a non-zero value.
func fill(v reflect.Value, depth int) {
	if depth > 6 {
		return
	}
	switch {
	case v.Type() == errorType:
		v.Set(reflect.ValueOf(messages.ErrOverloaded))
		return
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)))
		return
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`{"a":[1,2]}`))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s-" + v.Type().Name())
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(5)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), depth+1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), depth+1)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, depth+1)
		fill(e, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), depth+1)
			}
		}
	}
}

func TestErrorsKeepTheirIdentity(t *testing.T) {
	spawn := &messages.SpawnError{Command: "gopls", Err: &exec.Error{Name: "gopls", Err: exec.ErrNotFound}, Hint: "install it"}
	serverErr := &messages.ServerError{ServerID: "gopls", Root: "/w", Kind: messages.ErrServerCrashed,
		Cause: "exit status 2", Stderr: []string{"panic: x"}}
	pathErr := &messages.PathError{Path: "a.go", Kind: messages.ErrOutsideWorkspace, Detail: "/w"}
	tests := []struct {
		name string
		err  error
		is   []error
	}{
		{"sentinel", messages.ErrNotOpen, []error{messages.ErrNotOpen}},
		{"path error", pathErr, []error{messages.ErrOutsideWorkspace}},
		{"server error", serverErr, []error{messages.ErrServerCrashed}},
		{"spawn error", spawn, []error{messages.ErrSpawn, exec.ErrNotFound}},
		{"wrapped sentinel", fmt.Errorf("%w: gopls: boom", messages.ErrServerBroken), []error{messages.ErrServerBroken}},
		{"joined", errors.Join(messages.ErrCanceled, fmt.Errorf("x: %w", context.DeadlineExceeded)),
			[]error{messages.ErrCanceled, context.DeadlineExceeded}},
		{"deep", fmt.Errorf("a: %w", &wrapper{fmt.Errorf("b: %w", pathErr)}), []error{messages.ErrOutsideWorkspace}},
		{"errno", &fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, []error{fs.ErrNotExist}},
		{"unregistered", errors.New("something else"), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := roundTrip(t, &messages.FileSynced{Path: "a.go", Err: tc.err}).(*messages.FileSynced).Err
			if got == nil || got.Error() != tc.err.Error() {
				t.Fatalf("Err = %v, want %v", got, tc.err)
			}
			for _, target := range tc.is {
				if !errors.Is(got, target) {
					t.Errorf("errors.Is(%v, %v) = false after the round trip", got, target)
				}
			}
		})
	}
}

func TestTypedErrorsComeBackTyped(t *testing.T) {
	sent := &messages.FileResponse{ID: 9, Results: []messages.ServerResult{
		{ServerKey: messages.ServerKey{ServerID: "gopls", Root: "/w"}, Err: &messages.ServerError{
			ServerID: "gopls", Kind: messages.ErrServerBroken, Hint: "install it"}},
		{ServerKey: messages.ServerKey{ServerID: "pyright", Root: "/w"}, Result: json.RawMessage(`null`)},
	}, Err: &messages.PathError{Path: "x.go", Kind: messages.ErrNoServer}}
	got := roundTrip(t, sent).(*messages.FileResponse)
	var se *messages.ServerError
	if !errors.As(got.Results[0].Err, &se) || se.Kind != messages.ErrServerBroken || se.Hint != "install it" {
		t.Errorf("Results[0].Err = %#v, want a *ServerError of kind ErrServerBroken", got.Results[0].Err)
	}
	var pe *messages.PathError
	if !errors.As(got.Err, &pe) || pe.Kind != messages.ErrNoServer || pe.Path != "x.go" {
		t.Errorf("Err = %#v, want a *PathError of kind ErrNoServer", got.Err)
	}
	if got.Results[1].Err != nil || string(got.Results[1].Result) != "null" {
		t.Errorf("Results[1] = %+v, want a null result and no error", got.Results[1])
	}
}

func TestSerializer(t *testing.T) {
	if !Installed() {
		t.Fatal("the serializer is not installed in protoactor remote")
	}
	s := serializers[0]
	msg := &messages.Cancel{ID: 4}
	name, err := s.GetTypeName(msg)
	if err != nil || name != "agentlsp:*messages.Cancel" {
		t.Errorf("GetTypeName = %q, %v", name, err)
	}
	b, err := s.Serialize(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Deserialize(name, b); err != nil || !cmp.Equal(got, msg) {
		t.Errorf("Deserialize = %v, %v; want %v", got, err, msg)
	}
	pid := actor.NewPID("127.0.0.1:1", "x")
	name, _ = s.GetTypeName(pid)
	b, err = s.Serialize(pid)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.Deserialize(name, b); err != nil || got.(*actor.PID).Id != "x" {
		t.Errorf("protobuf Deserialize = %v, %v", got, err)
	}
	if _, err := s.Deserialize("no.such.Message", nil); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Deserialize(unknown protobuf) = %v, want ErrUnknownType", err)
	}
	if _, err := s.Deserialize("agentlsp:*messages.NoSuch", nil); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Deserialize(unknown message) = %v, want ErrUnknownType", err)
	}
	if _, err := s.Serialize(struct{}{}); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Serialize(unregistered) = %v, want ErrUnknownType", err)
	}
}

// wrapper is an error type the codec does not know.
type wrapper struct{ err error }

func (w *wrapper) Error() string { return "wrapper: " + w.err.Error() }
func (w *wrapper) Unwrap() error { return w.err }
