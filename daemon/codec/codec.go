package codec

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// Marshal encodes a message of a registered type (a messages type or a
// pointer to one) and returns its wire type name.
func Marshal(msg any) ([]byte, string, error) {
	v := reflect.ValueOf(msg)
	name, ok := reg.typeName(v.Type())
	if !ok {
		return nil, "", fmt.Errorf("%w: %T", ErrUnknownType, msg)
	}
	b, err := marshalValue(v)
	return b, name, err
}

// marshalValue encodes v through its type's plan.
func marshalValue(v reflect.Value) ([]byte, error) {
	p := planFor(v.Type())
	if p.same {
		return json.Marshal(v.Interface())
	}
	m := reflect.New(p.mirror).Elem()
	p.toMirror(m, v)
	return json.Marshal(m.Interface())
}

// Unmarshal decodes a message of the wire type name.
func Unmarshal(name string, data []byte) (any, error) {
	t, ok := reg.typeOf(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownType, name)
	}
	v, err := unmarshalValue(t, data)
	if err != nil {
		return nil, fmt.Errorf("codec: decoding %s: %w", name, err)
	}
	return v.Interface(), nil
}

// unmarshalValue decodes a value of type t through its plan.
func unmarshalValue(t reflect.Type, data []byte) (reflect.Value, error) {
	p := planFor(t)
	out := reflect.New(t)
	if p.same {
		err := json.Unmarshal(data, out.Interface())
		return out.Elem(), err
	}
	m := reflect.New(p.mirror)
	if err := json.Unmarshal(data, m.Interface()); err != nil {
		return reflect.Value{}, err
	}
	p.fromMirror(out.Elem(), m.Elem())
	return out.Elem(), nil
}
