package codec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"reflect"
	"strings"
	"syscall"
)

// Errors of the codec.
var (
	// ErrUnknownType: a type that is not in the registry (not a type of
	// package messages).
	ErrUnknownType = errors.New("codec: type not registered")
)

// sentinel is a registered error variable.
type sentinel struct {
	name string
	err  error
}

// stdSentinels are the standard library's errors that reach replies.
var stdSentinels = []sentinel{
	{"context.Canceled", context.Canceled},
	{"context.DeadlineExceeded", context.DeadlineExceeded},
	{"io.EOF", io.EOF},
	{"io.ErrUnexpectedEOF", io.ErrUnexpectedEOF},
	{"fs.ErrNotExist", fs.ErrNotExist},
	{"fs.ErrExist", fs.ErrExist},
	{"fs.ErrPermission", fs.ErrPermission},
	{"exec.ErrNotFound", exec.ErrNotFound},
}

// stdErrorTypes are the standard library's error types with exported
// fields that reach replies (the cause of a spawn failure).
var stdErrorTypes = []reflect.Type{
	reflect.TypeFor[fs.PathError](),
	reflect.TypeFor[exec.Error](),
	reflect.TypeFor[syscall.Errno](),
}

// registry maps names to types and sentinels, both ways.
type registry struct {
	types     map[string]reflect.Type
	typeNames map[reflect.Type]string
	sentinels map[string]error
	errNames  map[error]string
}

var reg = newRegistry()

func newRegistry() *registry {
	r := &registry{
		types: map[string]reflect.Type{}, typeNames: map[reflect.Type]string{},
		sentinels: map[string]error{}, errNames: map[error]string{},
	}
	for _, t := range append(append([]reflect.Type(nil), messageTypes...), stdErrorTypes...) {
		name := t.String() // "messages.FileRequest", "fs.PathError"
		r.types[name], r.typeNames[t] = t, name
	}
	for _, s := range append(append([]sentinel(nil), stdSentinels...), sentinels...) {
		r.sentinels[s.name], r.errNames[s.err] = s.err, s.name
	}
	return r
}

// typeName is the wire name of t: a registered type's name, with a "*"
// for a pointer to one.
func (r *registry) typeName(t reflect.Type) (string, bool) {
	if t == nil {
		return "", false
	}
	if name, ok := r.typeNames[t]; ok {
		return name, true
	}
	if t.Kind() == reflect.Pointer {
		if name, ok := r.typeNames[t.Elem()]; ok {
			return "*" + name, true
		}
	}
	return "", false
}

// typeOf is the type a wire name names.
func (r *registry) typeOf(name string) (reflect.Type, bool) {
	if elem, ok := strings.CutPrefix(name, "*"); ok {
		t, ok := r.types[elem]
		if !ok {
			return nil, false
		}
		return reflect.PointerTo(t), true
	}
	t, ok := r.types[name]
	return t, ok
}

// sentinelName is the name of a registered error variable.
func (r *registry) sentinelName(err error) (string, bool) {
	if !reflect.TypeOf(err).Comparable() {
		return "", false
	}
	name, ok := r.errNames[err]
	return name, ok
}

// TypeName returns the wire name of a message's type, or ErrUnknownType.
func TypeName(msg any) (string, error) {
	t := reflect.TypeOf(msg)
	name, ok := reg.typeName(t)
	if !ok {
		return "", fmt.Errorf("%w: %v", ErrUnknownType, t)
	}
	return name, nil
}
