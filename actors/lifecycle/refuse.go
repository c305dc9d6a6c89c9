package lifecycle

import (
	"fmt"
	"reflect"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/agentlsp/agentlsp/messages"
)

// NilMessage reports whether msg is a nil pointer (or nil): a type switch
// takes a nil *messages.Edit for an Edit, and reading its fields panics
// the actor, which protoactor then restarts without its state (every
// document and server of the router).
func NilMessage(msg any) bool {
	if msg == nil {
		return true
	}
	v := reflect.ValueOf(msg)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// Refuse answers the current message, one the actor named name does not
// take, with a *messages.Refused, when it has a sender: an orchestrator
// that asks the wrong actor, or sends a value instead of a pointer, gets
// an answer that says so instead of waiting for its future's timeout. A
// Refused is never answered (two actors would refuse each other's), nor
// is a message without a sender (nobody waits for it) or one of the actor
// system's own.
func Refuse(ctx actor.Context, name string) {
	msg, sender := ctx.Message(), ctx.Sender()
	if sender == nil {
		return
	}
	switch msg.(type) {
	case *messages.Refused, actor.SystemMessage, actor.AutoReceiveMessage:
		return
	}
	ctx.Respond(Refusal(msg, name))
}

// Refusal is the answer of the actor named name to msg, which it does not
// take.
func Refusal(msg any, name string) *messages.Refused {
	typ := fmt.Sprintf("%T", msg)
	var why string
	switch {
	case msg == nil:
		why = "a nil message"
	case NilMessage(msg):
		why = "a nil " + typ
	case reflect.TypeOf(msg).Kind() == reflect.Struct:
		why = fmt.Sprintf("%s (messages are sent as pointers: *%s)", typ, typ)
	default:
		why = typ
	}
	return &messages.Refused{Type: typ, Err: fmt.Errorf("%w: the %s does not take %s", messages.ErrUnknownMessage, name, why)}
}

// NilSafeMailbox is protoactor's unbounded mailbox, except that a nil
// posted to it (an orchestrator's root.Send(pid, nil)) is delivered as a
// *NilPosted: protoactor's queue takes a nil for its end, so its mailbox
// counted a message it could never take out and ran its loop again and
// again, a core at 100% for good, and Shutdown waited in vain for that
// worker. For the actors orchestrators send messages to.
func NilSafeMailbox() actor.MailboxProducer {
	unbounded := actor.Unbounded()
	return func() actor.Mailbox { return nilSafe{unbounded()} }
}

// NilPosted stands for a nil message posted to a NilSafeMailbox.
type NilPosted struct{}

type nilSafe struct{ actor.Mailbox }

func (m nilSafe) PostUserMessage(msg any) {
	if msg == nil {
		msg = &NilPosted{}
	}
	m.Mailbox.PostUserMessage(msg)
}
