package codec

import (
	"encoding/json"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agentlsp/agentlsp/messages"
)

// The decoding half of the hand-written protobuf of proto_bench_test.go.

// pbEach calls f for every field of a protobuf message.
func pbEach(b []byte, f func(n protowire.Number, v uint64, s []byte)) {
	for len(b) > 0 {
		n, t, l := protowire.ConsumeTag(b)
		b = b[l:]
		switch t {
		case protowire.VarintType:
			v, l := protowire.ConsumeVarint(b)
			f(n, v, nil)
			b = b[l:]
		default:
			s, l := protowire.ConsumeBytes(b)
			f(n, 0, s)
			b = b[l:]
		}
	}
}

func upKey(b []byte) (k messages.ServerKey) {
	pbEach(b, func(n protowire.Number, _ uint64, s []byte) {
		if n == 1 {
			k.ServerID = string(s)
		} else {
			k.Root = string(s)
		}
	})
	return k
}

func upVersion(b []byte) (v messages.ServerVersion) {
	pbEach(b, func(n protowire.Number, x uint64, s []byte) {
		switch n {
		case 1:
			v.ServerKey = upKey(s)
		case 2:
			v.Version = int32(x)
		case 3:
			v.Changed = x == 1
		case 4:
			v.SentAt = time.Unix(0, int64(x)).UTC()
		}
	})
	return v
}

func upPos(b []byte) (p messages.Position) {
	pbEach(b, func(n protowire.Number, x uint64, _ []byte) {
		if n == 1 {
			p.Line = uint32(x)
		} else {
			p.Character = uint32(x)
		}
	})
	return p
}

func protoUnmarshal(like any, b []byte) any {
	switch like.(type) {
	case *messages.SyncDocument:
		m := &messages.SyncDocument{}
		pbEach(b, func(n protowire.Number, x uint64, s []byte) {
			switch n {
			case 1:
				m.Session = string(s)
			case 2:
				m.Path = string(s)
			case 3:
				m.Action = messages.SyncAction(x)
			case 4:
				m.Text = string(s)
			case 5:
				m.Fresh = x == 1
			}
		})
		return m
	case *messages.FileSynced:
		m := &messages.FileSynced{}
		pbEach(b, func(n protowire.Number, _ uint64, s []byte) {
			switch n {
			case 1:
				m.Path = string(s)
			case 2:
				m.URI = string(s)
			case 3:
				m.Servers = append(m.Servers, upVersion(s))
			case 4:
				m.Text = string(s)
			}
		})
		return m
	case *messages.FileRequest:
		m := &messages.FileRequest{}
		pbEach(b, func(n protowire.Number, x uint64, s []byte) {
			switch n {
			case 1:
				m.ID = x
			case 2:
				m.Path = string(s)
			case 3:
				m.Method = string(s)
			case 4:
				m.Params = append(json.RawMessage(nil), s...)
			case 5:
				m.Timeout = time.Duration(x)
			}
		})
		return m
	case *messages.FileResponse:
		m := &messages.FileResponse{}
		pbEach(b, func(n protowire.Number, x uint64, s []byte) {
			switch n {
			case 1:
				m.ID = x
			case 2:
				var r messages.ServerResult
				pbEach(s, func(n protowire.Number, x uint64, s []byte) {
					switch n {
					case 1:
						r.ServerKey = upKey(s)
					case 2:
						r.Result = append(json.RawMessage(nil), s...)
					case 4:
						r.Indexing = x == 1
					}
				})
				m.Results = append(m.Results, r)
			}
		})
		return m
	case *messages.EditStarted:
		m := &messages.EditStarted{}
		pbEach(b, func(n protowire.Number, x uint64, s []byte) {
			switch n {
			case 1:
				m.EditID = x
			case 2:
				m.Session = string(s)
			case 3:
				m.URI = string(s)
			}
		})
		return m
	case *messages.AwaitEdit:
		m := &messages.AwaitEdit{}
		pbEach(b, func(n protowire.Number, x uint64, s []byte) {
			switch n {
			case 1:
				m.EditID = x
			case 2:
				m.Session = string(s)
			case 3:
				m.URI = string(s)
			case 4:
				m.Servers = append(m.Servers, upVersion(s))
			case 5:
				m.Timeout = time.Duration(x)
			case 6:
				m.Settle = time.Duration(x)
			case 7:
				m.All = x == 1
			case 8:
				m.MinSeverity = messages.Severity(x)
			case 9:
				m.MaxEdited = int(x)
			case 10:
				m.MaxOtherFiles = int(x)
			}
		})
		return m
	case *messages.EditResult:
		return upEditResult(b)
	}
	panic("no protobuf schema for this message")
}

func upEditResult(b []byte) *messages.EditResult {
	m := &messages.EditResult{}
	pbEach(b, func(n protowire.Number, x uint64, s []byte) {
		switch n {
		case 1:
			m.EditID = x
		case 2:
			m.Status = messages.Status(s)
		case 3:
			var f messages.FileReport
			pbEach(s, func(n protowire.Number, x uint64, s []byte) {
				switch n {
				case 1:
					f.URI = string(s)
				case 2:
					f.Path = string(s)
				case 3:
					f.Status = messages.Status(s)
				case 4:
					f.Diagnostics = append(f.Diagnostics, upDiagnostic(s))
				case 5:
					f.More = int(x)
				case 6:
					f.Servers = append(f.Servers, string(s))
				case 7:
					f.Detail = string(s)
				}
			})
			m.Files = append(m.Files, f)
		case 4:
			m.Elapsed = time.Duration(x)
		}
	})
	return m
}

func upDiagnostic(b []byte) (d messages.Diagnostic) {
	pbEach(b, func(n protowire.Number, x uint64, s []byte) {
		switch n {
		case 1:
			pbEach(s, func(n protowire.Number, _ uint64, s []byte) {
				if n == 1 {
					d.Range.Start = upPos(s)
				} else {
					d.Range.End = upPos(s)
				}
			})
		case 2:
			d.Severity = messages.Severity(x)
		case 3:
			d.Code = string(s)
		case 4:
			d.Source = string(s)
		case 5:
			d.Message = string(s)
		}
	})
	return d
}
