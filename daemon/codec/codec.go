package codec

import (
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
