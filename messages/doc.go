// Package messages holds every message the agentlsp actors exchange and the
// public API speaks: plain value structs with no behaviour.
//
// It is the leaf of the import graph: it imports only the standard library.
// A message is owned by its receiver once sent: senders copy slices and raw
// JSON before they put them in a message, and never change a message after
// sending it. No message carries a context.Context, a connection or a
// borrowed buffer.
//
// Errors that cross an actor boundary travel inside reply messages; the
// sentinel errors of this package (ErrOverloaded, ErrServerBroken, ...) let
// every layer match them with errors.Is.
package messages
