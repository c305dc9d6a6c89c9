package messages

// Refused answers a request that its actor does not take: a message of a
// type it does not handle (a value where the actor takes a pointer, a
// message meant for the other actor, a type of another package) or a nil
// pointer. Type is the message's Go type; Err names the actor and the
// type, and matches ErrUnknownMessage. An actor sends it only to a
// sender, and never answers a Refused it receives.
type Refused struct {
	Type string
	Err  error
}
