package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The wire format is protobuf's, with the schema derived from the Go
// types by reflection: a struct is a message whose field number is the
// field's index plus one; bools and integers (durations included) are
// varints, floats fixed64, strings, []byte and json.RawMessage
// length-delimited, structs (and pointers to them) nested messages,
// slices repeated fields, maps repeated {1: key, 2: value} entries,
// time.Time its MarshalBinary bytes, and an error a nested wireError.
// Zero values are left out, so a field added to a message costs nothing
// when unset. Clients and daemons of one version share the types (each
// version runs its own daemon), so the numbering needs no registry.

// ErrUnsupported: a message holds a kind of value the codec does not
// carry (a channel, a function, an interface other than error).
var ErrUnsupported = errors.New("codec: value not supported")

var (
	errorType = reflect.TypeFor[error]()
	timeType  = reflect.TypeFor[time.Time]()
	rawType   = reflect.TypeFor[json.RawMessage]()
	bytesType = reflect.TypeFor[[]byte]()
	fieldMap  sync.Map // reflect.Type -> []int: exported field indexes by number-1 (-1: none)
)

// fieldsOf returns, for field number n, the index of struct t's field
// (n-1 if exported, else -1).
func fieldsOf(t reflect.Type) []int {
	if f, ok := fieldMap.Load(t); ok {
		return f.([]int)
	}
	f := make([]int, t.NumField())
	for i := range f {
		f[i] = -1
		if t.Field(i).IsExported() {
			f[i] = i
		}
	}
	fieldMap.Store(t, f)
	return f
}

// marshalValue encodes v: a struct as a message, anything else as field 1
// of a message.
func marshalValue(v reflect.Value) ([]byte, error) {
	if v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct && v.Type().Elem() != timeType {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct && v.Type() != timeType {
		return appendMessage(nil, v)
	}
	return appendField(nil, 1, v, false)
}

// unmarshalValue decodes a value of type t that marshalValue encoded.
func unmarshalValue(t reflect.Type, b []byte) (reflect.Value, error) {
	out := reflect.New(t).Elem()
	target := out
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct && t.Elem() != timeType {
		out.Set(reflect.New(t.Elem()))
		target = out.Elem()
	}
	if target.Kind() == reflect.Struct && target.Type() != timeType {
		return out, decodeMessage(b, target)
	}
	var err error
	each(b, func(n protowire.Number, typ protowire.Type, x uint64, s []byte) {
		if n == 1 && err == nil {
			err = setField(out, typ, x, s)
		}
	})
	return out, err
}

// appendMessage appends the fields of struct v.
func appendMessage(b []byte, v reflect.Value) ([]byte, error) {
	var err error
	for num, i := range fieldsOf(v.Type()) {
		if i < 0 {
			continue
		}
		if b, err = appendField(b, protowire.Number(num+1), v.Field(i), false); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendField appends field num holding v; zero values are left out
// unless force (an element of a repeated field or map entry).
func appendField(b []byte, num protowire.Number, v reflect.Value, force bool) ([]byte, error) {
	t := v.Type()
	switch {
	case t == errorType:
		if v.IsNil() {
			return b, nil
		}
		return appendNested(b, num, reflect.ValueOf(encodeError(v.Interface().(error))).Elem())
	case t == timeType:
		if v.Interface().(time.Time).IsZero() && !force {
			return b, nil
		}
		bin, err := v.Interface().(time.Time).MarshalBinary()
		if err != nil {
			return nil, err
		}
		return appendBytes(b, num, bin), nil
	case t == rawType || t == bytesType || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		if v.Len() == 0 && !force {
			return b, nil
		}
		return appendBytes(b, num, v.Bytes()), nil
	}
	return appendKind(b, num, v, force)
}

// appendKind appends a field by its value's kind.
func appendKind(b []byte, num protowire.Number, v reflect.Value, force bool) ([]byte, error) {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() || force {
			return appendVarint(b, num, b2u(v.Bool())), nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Int() != 0 || force {
			return appendVarint(b, num, uint64(v.Int())), nil
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() != 0 || force {
			return appendVarint(b, num, v.Uint()), nil
		}
	case reflect.Float32, reflect.Float64:
		if v.Float() != 0 || force {
			return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), math.Float64bits(v.Float())), nil
		}
	case reflect.String:
		if v.Len() > 0 || force {
			return protowire.AppendString(protowire.AppendTag(b, num, protowire.BytesType), v.String()), nil
		}
	case reflect.Struct:
		return appendNested(b, num, v)
	case reflect.Pointer:
		if v.IsNil() {
			return b, nil
		}
		return appendField(b, num, v.Elem(), true)
	case reflect.Slice:
		return appendRepeated(b, num, v)
	case reflect.Map:
		return appendMap(b, num, v)
	default:
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, v.Type())
	}
	return b, nil
}

func appendRepeated(b []byte, num protowire.Number, v reflect.Value) ([]byte, error) {
	var err error
	for i := range v.Len() {
		if b, err = appendField(b, num, v.Index(i), true); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendMap(b []byte, num protowire.Number, v reflect.Value) ([]byte, error) {
	for it := v.MapRange(); it.Next(); {
		entry, err := appendField(nil, 1, it.Key(), true)
		if err == nil {
			entry, err = appendField(entry, 2, it.Value(), true)
		}
		if err != nil {
			return nil, err
		}
		b = appendBytes(b, num, entry)
	}
	return b, nil
}

func appendNested(b []byte, num protowire.Number, v reflect.Value) ([]byte, error) {
	m, err := appendMessage(nil, v)
	if err != nil {
		return nil, err
	}
	return appendBytes(b, num, m), nil
}

func appendBytes(b []byte, num protowire.Number, s []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), s)
}

func appendVarint(b []byte, num protowire.Number, x uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), x)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// each calls f for every field of a message; a malformed message ends
// the walk (its fields so far are kept).
func each(b []byte, f func(n protowire.Number, typ protowire.Type, x uint64, s []byte)) bool {
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		if l < 0 {
			return false
		}
		b = b[l:]
		var x uint64
		var s []byte
		switch typ {
		case protowire.VarintType:
			x, l = protowire.ConsumeVarint(b)
		case protowire.Fixed64Type:
			x, l = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			s, l = protowire.ConsumeBytes(b)
		default:
			l = protowire.ConsumeFieldValue(n, typ, b)
		}
		if l < 0 {
			return false
		}
		b = b[l:]
		f(n, typ, x, s)
	}
	return true
}

// errMalformed: bytes that are not a message.
var errMalformed = errors.New("codec: malformed message")

// decodeMessage sets the fields of struct v from b; unknown field numbers
// (a newer peer) are skipped.
func decodeMessage(b []byte, v reflect.Value) error {
	fields := fieldsOf(v.Type())
	var err error
	ok := each(b, func(n protowire.Number, typ protowire.Type, x uint64, s []byte) {
		if i := int(n) - 1; err == nil && i >= 0 && i < len(fields) && fields[i] >= 0 {
			err = setField(v.Field(fields[i]), typ, x, s)
		}
	})
	if !ok && err == nil {
		err = errMalformed
	}
	return err
}

// setField sets f from one occurrence of its field (a repeated field
// appends).
func setField(f reflect.Value, typ protowire.Type, x uint64, s []byte) error {
	t := f.Type()
	switch {
	case t == errorType:
		w := &wireError{}
		if err := decodeMessage(s, reflect.ValueOf(w).Elem()); err != nil {
			return err
		}
		if e := decodeError(w); e != nil {
			f.Set(reflect.ValueOf(e))
		}
		return nil
	case t == timeType:
		var tm time.Time
		if err := tm.UnmarshalBinary(s); err != nil {
			return err
		}
		f.Set(reflect.ValueOf(tm))
		return nil
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		f.SetBytes(append([]byte{}, s...))
		return nil
	}
	return setKind(f, typ, x, s)
}

// setKind sets f by its kind.
func setKind(f reflect.Value, typ protowire.Type, x uint64, s []byte) error {
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(x != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f.SetInt(int64(x))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		f.SetUint(x)
	case reflect.Float32, reflect.Float64:
		f.SetFloat(math.Float64frombits(x))
	case reflect.String:
		f.SetString(string(s))
	case reflect.Struct:
		return decodeMessage(s, f)
	case reflect.Pointer:
		if f.IsNil() {
			f.Set(reflect.New(f.Type().Elem()))
		}
		return setField(f.Elem(), typ, x, s)
	case reflect.Slice:
		e := reflect.New(f.Type().Elem()).Elem()
		if err := setField(e, typ, x, s); err != nil {
			return err
		}
		f.Set(reflect.Append(f, e))
	case reflect.Map:
		return setEntry(f, s)
	default:
		return fmt.Errorf("%w: %v", ErrUnsupported, f.Type())
	}
	return nil
}

// setEntry adds a map entry {1: key, 2: value}.
func setEntry(f reflect.Value, s []byte) error {
	if f.IsNil() {
		f.Set(reflect.MakeMap(f.Type()))
	}
	k, v := reflect.New(f.Type().Key()).Elem(), reflect.New(f.Type().Elem()).Elem()
	var err error
	each(s, func(n protowire.Number, typ protowire.Type, x uint64, b []byte) {
		switch {
		case err != nil:
		case n == 1:
			err = setField(k, typ, x, b)
		case n == 2:
			err = setField(v, typ, x, b)
		}
	})
	if err == nil {
		f.SetMapIndex(k, v)
	}
	return err
}
