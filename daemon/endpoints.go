package daemon

import (
	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
)

// endpointGone tells an actor that protoactor remote lost the connection
// to a peer address (the peer exited, was killed, or disconnected).
type endpointGone struct{ address string }

// watchEndpoints sends self an endpointGone for every endpoint protoactor
// remote terminates, until the subscription is removed (Unsubscribe it on
// Stopping). The front and the link use it instead of watching each
// other's actors: a watch makes the actor that stops notify its watchers,
// and notifying a peer that is gone costs a connection attempt and a 2 s
// pause in protoactor's endpoint writer.
func watchEndpoints(ctx actor.Context) *eventstream.Subscription {
	root, self := ctx.ActorSystem().Root, ctx.Self()
	return ctx.ActorSystem().EventStream.SubscribeWithPredicate(func(evt any) {
		root.Send(self, &endpointGone{address: evt.(*remote.EndpointTerminatedEvent).Address})
	}, func(evt any) bool {
		_, ok := evt.(*remote.EndpointTerminatedEvent)
		return ok
	})
}
