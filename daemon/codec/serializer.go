package codec

import (
	"fmt"
	"strings"
	_ "unsafe" // for go:linkname

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TypePrefix starts the wire type names of our messages in protoactor's
// envelopes ("agentlsp:*messages.FileRequest"); other names are protobuf
// message names.
const TypePrefix = "agentlsp:"

// serializers is protoactor remote's serializer table. Its endpoint writer
// always uses entry 0, so Install replaces it.
//
//go:linkname serializers github.com/asynkron/protoactor-go/remote.serializers
var serializers []remote.Serializer

func init() { Install() }

// Install makes protoactor remote (in this process) serialize our
// messages with this package and everything else as before. It runs at
// init, before any remote can send, and does nothing the second time.
func Install() {
	if _, ok := serializers[0].(Serializer); ok {
		return
	}
	serializers[0] = Serializer{next: serializers[0]}
}

// Installed reports whether protoactor remote uses this package's
// serializer.
func Installed() bool {
	_, ok := serializers[0].(Serializer)
	return ok
}

// Serializer is the protoactor remote serializer: this package's JSON for
// registered types, protoactor's protobuf serializer for protobuf messages.
type Serializer struct {
	next remote.Serializer
}

// Serialize encodes msg.
func (s Serializer) Serialize(msg any) ([]byte, error) {
	if _, ok := msg.(proto.Message); ok {
		return s.next.Serialize(msg)
	}
	b, _, err := Marshal(msg)
	return b, err
}

// GetTypeName returns msg's wire type name.
func (s Serializer) GetTypeName(msg any) (string, error) {
	if _, ok := msg.(proto.Message); ok {
		return s.next.GetTypeName(msg)
	}
	name, err := TypeName(msg)
	return TypePrefix + name, err
}

// Deserialize decodes a message. An unknown protobuf name is an error
// (protoactor's own serializer would dereference nil).
func (s Serializer) Deserialize(typeName string, b []byte) (any, error) {
	if name, ok := strings.CutPrefix(typeName, TypePrefix); ok {
		return Unmarshal(name, b)
	}
	if _, err := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(typeName)); err != nil {
		return nil, fmt.Errorf("%w: %q", ErrUnknownType, typeName)
	}
	return s.next.Deserialize(typeName, b)
}
