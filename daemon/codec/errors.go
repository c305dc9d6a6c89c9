package codec

import "reflect"

// maxErrorDepth bounds how deep an error chain is searched for the
// registered errors it wraps.
const maxErrorDepth = 32

// wireError is an error on the wire: a registered variable's name, a
// registered error type with its fields, or text and the registered errors
// the original wrapped.
type wireError struct {
	Sentinel string       // a registered variable's name
	Type     string       // a registered error type's name, with
	Value    []byte       // its value, encoded
	Text     string       // else the error's text
	Wraps    []*wireError // and the registered errors it wraps
}

// RemoteError is an error that crossed a process boundary with no
// registered type: its text, and the registered errors it wrapped, so that
// errors.Is and errors.As still match those.
type RemoteError struct {
	Text    string
	Wrapped []error
}

// Error returns the original error's text.
func (e *RemoteError) Error() string { return e.Text }

// Unwrap returns the registered errors the original wrapped.
func (e *RemoteError) Unwrap() []error { return e.Wrapped }

// encodeError is the wire form of err.
func encodeError(err error) *wireError {
	if name, ok := reg.sentinelName(err); ok {
		return &wireError{Sentinel: name}
	}
	if name, ok := reg.typeName(reflect.TypeOf(err)); ok {
		if b, e := marshalValue(reflect.ValueOf(err)); e == nil {
			return &wireError{Type: name, Value: b}
		}
	}
	w := &wireError{Text: err.Error()}
	for _, u := range unwrap(err) {
		w.Wraps = append(w.Wraps, registeredIn(u, 0)...)
	}
	return w
}

// registeredIn returns the wire forms of the registered errors in err's
// chain: err itself if registered, else those it wraps.
func registeredIn(err error, depth int) []*wireError {
	if err == nil || depth > maxErrorDepth {
		return nil
	}
	if _, ok := reg.sentinelName(err); ok {
		return []*wireError{encodeError(err)}
	}
	if _, ok := reg.typeName(reflect.TypeOf(err)); ok {
		return []*wireError{encodeError(err)}
	}
	var out []*wireError
	for _, u := range unwrap(err) {
		out = append(out, registeredIn(u, depth+1)...)
	}
	return out
}

// unwrap returns what err wraps, by Unwrap() error or Unwrap() []error.
func unwrap(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return []error{e}
		}
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	}
	return nil
}

// decodeError is the error a wire form describes: the registered variable
// itself, a value of the registered type, or a *RemoteError. A name this
// side does not know becomes a *RemoteError with the name as text.
func decodeError(w *wireError) error {
	switch {
	case w == nil:
		return nil
	case w.Sentinel != "":
		if err, ok := reg.sentinels[w.Sentinel]; ok {
			return err
		}
		return &RemoteError{Text: w.Sentinel}
	case w.Type != "":
		if t, ok := reg.typeOf(w.Type); ok {
			if v, err := unmarshalValue(t, w.Value); err == nil {
				if e, ok := v.Interface().(error); ok {
					return e
				}
			}
		}
		return &RemoteError{Text: w.Type + ": " + string(w.Value)}
	}
	out := &RemoteError{Text: w.Text}
	for _, x := range w.Wraps {
		if e := decodeError(x); e != nil {
			out.Wrapped = append(out.Wrapped, e)
		}
	}
	return out
}
