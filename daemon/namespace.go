package daemon

import (
	"reflect"
	"strings"
	"sync"
)

// idMask keeps the bits of an id the client chose.
const idMask = 1<<idBits - 1

// namespace puts a client's identifiers in its own space in the daemon:
// the fields that name what the caller chose, in every message type
// (Session strings get "c3/", ID and EditID uint64s get the client's
// base), so that clients never share a session or an id. It is generic:
// a new message type with such fields is namespaced without code.
type namespace struct {
	client string
	base   uint64
}

// nsFields are the indexes of a struct type's namespaced fields.
type nsFields struct {
	session []int
	ids     []int
}

var fieldCache sync.Map // reflect.Type -> *nsFields

// fieldsOf returns the namespaced fields of struct type t.
func fieldsOf(t reflect.Type) *nsFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*nsFields)
	}
	f := &nsFields{}
	for i := range t.NumField() {
		sf := t.Field(i)
		switch {
		case sf.Name == "Session" && sf.Type.Kind() == reflect.String:
			f.session = append(f.session, i)
		case (sf.Name == "ID" || sf.Name == "EditID") && sf.Type.Kind() == reflect.Uint64:
			f.ids = append(f.ids, i)
		}
	}
	fieldCache.Store(t, f)
	return f
}

// out returns a copy of msg (a pointer to a struct, or a struct) with its
// identifiers put in the client's space; other messages are returned as
// they are.
func (n *namespace) out(msg any) any {
	v, ok := structOf(msg)
	if !ok {
		return msg
	}
	f := fieldsOf(v.Type())
	if len(f.session) == 0 && len(f.ids) == 0 {
		return msg
	}
	c := reflect.New(v.Type())
	c.Elem().Set(v)
	for _, i := range f.session {
		if s := c.Elem().Field(i); s.String() != "" {
			s.SetString(n.client + "/" + s.String())
		}
	}
	for _, i := range f.ids {
		if id := c.Elem().Field(i); id.Uint() != 0 {
			id.SetUint(n.base | id.Uint()&idMask)
		}
	}
	if reflect.TypeOf(msg).Kind() == reflect.Pointer {
		return c.Interface()
	}
	return c.Elem().Interface()
}

// in takes a reply's identifiers back to the client's own: msg is owned
// by the caller (just decoded) and changed in place when it is a pointer.
func (n *namespace) in(msg any) any {
	v, ok := structOf(msg)
	if !ok {
		return msg
	}
	f := fieldsOf(v.Type())
	if len(f.session) == 0 && len(f.ids) == 0 {
		return msg
	}
	if !v.CanSet() {
		c := reflect.New(v.Type()).Elem()
		c.Set(v)
		v = c
	}
	for _, i := range f.session {
		s := v.Field(i)
		s.SetString(strings.TrimPrefix(s.String(), n.client+"/"))
	}
	for _, i := range f.ids {
		id := v.Field(i)
		id.SetUint(id.Uint() & idMask)
	}
	if reflect.TypeOf(msg).Kind() == reflect.Pointer {
		return msg
	}
	return v.Interface()
}

// structOf returns the struct msg is or points to.
func structOf(msg any) (reflect.Value, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, false
		}
		v = v.Elem()
	}
	return v, v.Kind() == reflect.Struct
}
