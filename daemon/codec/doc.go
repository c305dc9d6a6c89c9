// Package codec carries agentlsp's messages across processes: an encoding
// of every type of package messages in protobuf's wire format, with the
// schema derived from the Go types by reflection (field number = field
// index + 1; see wire.go), so it is generic over their fields, and the
// protoactor remote serializer that uses it. It was chosen over JSON by
// measuring (proto_bench_test.go, docs/BENCHMARKS.md): a hover's messages
// carry the file's text, and encoding/json decodes text an order of
// magnitude slower than a length-prefixed copy; it is as fast as protobuf
// written by hand.
//
// Types travel by name ("*messages.FileRequest"), from a registry of the
// messages package's exported types generated from its source
// (registry_gen.go; `go generate` rewrites it, and a test fails when it is
// out of date). Errors travel as a sentinel's name (matched with errors.Is
// on the other side against the same variable), as a registered error type
// with its fields (*messages.PathError, *messages.ServerError, ...,
// matched with errors.As), or as their text plus the registered errors they
// wrap (a *RemoteError whose Unwrap returns them).
//
// Importing the package installs the serializer in protoactor remote, at
// init: this protoactor version serializes every remote message with
// serializer 0 (its protobuf serializer; the id is never set, so
// serializers added with remote.RegisterSerializer are never used), so
// ours takes slot 0 and hands protobuf messages (protoactor's own system
// messages) to the serializer it replaced.
//
// The package starts no goroutine. Everything is safe for concurrent use.
package codec

//go:generate go test -run ^TestRegistryGenerated$ -update .
