package codec

import (
	"encoding"
	"encoding/json"
	"reflect"
	"sync"
)

// This file is the JSON codec the serializer was measured against (see
// proto_bench_test.go and docs/BENCHMARKS.md): encoding/json over the
// messages, generic over their fields, with every error replaced by its
// wire form.

// jsonMarshal encodes msg as JSON.
func jsonMarshal(msg any) ([]byte, string, error) {
	v := reflect.ValueOf(msg)
	name, ok := reg.typeName(v.Type())
	if !ok {
		return nil, "", ErrUnknownType
	}
	p := planFor(v.Type())
	if p.same {
		b, err := json.Marshal(msg)
		return b, name, err
	}
	m := reflect.New(p.mirror).Elem()
	p.toMirror(m, v)
	b, err := json.Marshal(m.Interface())
	return b, name, err
}

// jsonUnmarshal decodes what jsonMarshal encoded.
func jsonUnmarshal(name string, data []byte) (any, error) {
	t, ok := reg.typeOf(name)
	if !ok {
		return nil, ErrUnknownType
	}
	p := planFor(t)
	out := reflect.New(t)
	if p.same {
		err := json.Unmarshal(data, out.Interface())
		return out.Elem().Interface(), err
	}
	m := reflect.New(p.mirror)
	if err := json.Unmarshal(data, m.Interface()); err != nil {
		return nil, err
	}
	p.fromMirror(out.Elem(), m.Elem())
	return out.Elem().Interface(), nil
}

// A plan says how to encode values of one type. JSON cannot hold an error
// (an interface whose dynamic types have no exported fields), so a type
// that holds errors anywhere is encoded through its mirror: a type built
// with reflect, identical but for every error replaced by *wireError.
// Types without errors are their own mirror and go to encoding/json as
// they are.
type plan struct {
	typ, mirror reflect.Type
	same        bool        // typ holds no error: mirror == typ
	fields      []fieldPlan // structs: the exported fields
	elem        *plan       // pointers, slices, arrays, maps
}

// fieldPlan maps a struct field to its mirror's field.
type fieldPlan struct {
	src, dst int
	plan     *plan
}

var (
	wireErrorType = reflect.TypeFor[*wireError]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
	plans         sync.Map // reflect.Type -> *plan
)

// planFor returns the plan of t, built once.
func planFor(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	p := build(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

// build makes the plan of t. A type that encodes itself (json or text
// marshaler) is kept as it is; a recursive type is assumed to hold no
// error (the messages have none).
func build(t reflect.Type, seen map[reflect.Type]bool) *plan {
	p := &plan{typ: t, mirror: t, same: true}
	switch {
	case t == errorType:
		p.mirror, p.same = wireErrorType, false
		return p
	case seen[t] || t.Implements(marshalerType) || t.Implements(textType) ||
		t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textType)):
		return p
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		e := build(t.Elem(), seen)
		if e.same {
			return p
		}
		p.elem, p.same = e, false
		switch t.Kind() {
		case reflect.Pointer:
			p.mirror = reflect.PointerTo(e.mirror)
		case reflect.Slice:
			p.mirror = reflect.SliceOf(e.mirror)
		case reflect.Array:
			p.mirror = reflect.ArrayOf(t.Len(), e.mirror)
		default:
			p.mirror = reflect.MapOf(t.Key(), e.mirror)
		}
	case reflect.Struct:
		buildStruct(p, seen)
	}
	return p
}

// buildStruct plans a struct's exported fields; the mirror (without the
// unexported fields, which JSON ignores) exists only if a field holds an
// error. An embedded field that holds errors, or whose type has methods
// (reflect.StructOf cannot embed those), becomes a named field.
func buildStruct(p *plan, seen map[reflect.Type]bool) {
	t := p.typ
	var fields []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fp := build(f.Type, seen)
		sf := reflect.StructField{Name: f.Name, Type: fp.mirror, Tag: f.Tag, Anonymous: f.Anonymous}
		if f.Anonymous && (!fp.same || f.Type.NumMethod() > 0 || reflect.PointerTo(f.Type).NumMethod() > 0) {
			sf.Anonymous = false
		}
		p.fields = append(p.fields, fieldPlan{src: i, dst: len(fields), plan: fp})
		fields = append(fields, sf)
		p.same = p.same && fp.same
	}
	if !p.same {
		p.mirror = reflect.StructOf(fields)
	}
}

// toMirror sets dst (of type p.mirror) to src (of type p.typ).
func (p *plan) toMirror(dst, src reflect.Value) {
	if p.same {
		dst.Set(src)
		return
	}
	switch {
	case p.typ == errorType:
		if !src.IsNil() {
			dst.Set(reflect.ValueOf(encodeError(src.Interface().(error))))
		}
		return
	case p.typ.Kind() == reflect.Struct:
		for _, f := range p.fields {
			f.plan.toMirror(dst.Field(f.dst), src.Field(f.src))
		}
		return
	}
	p.convert(dst, src, p.mirror, (*plan).toMirror)
}

// fromMirror sets dst (of type p.typ) to src (of type p.mirror).
func (p *plan) fromMirror(dst, src reflect.Value) {
	if p.same {
		dst.Set(src)
		return
	}
	switch {
	case p.typ == errorType:
		if !src.IsNil() {
			dst.Set(reflect.ValueOf(decodeError(src.Interface().(*wireError))))
		}
		return
	case p.typ.Kind() == reflect.Struct:
		for _, f := range p.fields {
			f.plan.fromMirror(dst.Field(f.src), src.Field(f.dst))
		}
		return
	}
	p.convert(dst, src, p.typ, (*plan).fromMirror)
}

// convert copies a pointer, slice, array or map element by element with
// conv (toMirror or fromMirror of the element plan); to is dst's type.
func (p *plan) convert(dst, src reflect.Value, to reflect.Type, conv func(*plan, reflect.Value, reflect.Value)) {
	switch p.typ.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		n := reflect.New(to.Elem())
		conv(p.elem, n.Elem(), src.Elem())
		dst.Set(n)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		n := reflect.MakeSlice(to, src.Len(), src.Len())
		for i := range src.Len() {
			conv(p.elem, n.Index(i), src.Index(i))
		}
		dst.Set(n)
	case reflect.Array:
		for i := range src.Len() {
			conv(p.elem, dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		n := reflect.MakeMapWithSize(to, src.Len())
		for it := src.MapRange(); it.Next(); {
			v := reflect.New(to.Elem()).Elem()
			conv(p.elem, v, it.Value())
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	}
}
