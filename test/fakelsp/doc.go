// Package fakelsp is a scripted fake language server for tests. It speaks
// real LSP (Content-Length framed JSON-RPC 2.0) over stdio or one socket
// connection, keeps a copy of every open document, publishes or answers
// diagnostics computed from marker words in the text (ERROR:, WARN:,
// SYNTAX:), and misbehaves on command: it crashes, hangs, answers late,
// writes garbage or oversized frames, ignores shutdown, stops reading, and
// sends its own requests to the client.
//
// Behaviour is chosen by flags; run with -h for the list. The package is a
// library so that tests can re-execute their own test binary as the server:
//
//	func TestMain(m *testing.M) {
//		if os.Getenv("BE_FAKELSP") == "1" {
//			os.Exit(fakelsp.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
//		}
//		os.Exit(m.Run())
//	}
//
// and then start os.Args[0] with BE_FAKELSP=1 and fake flags as arguments.
// The command test/fakelsp/cmd/fakelsp wraps Main the same way.
//
// Goroutines: Main reads and handles messages in read order on the calling
// goroutine. One scheduler goroutine, owned by the serving call, runs timed
// work (delayed answers, delayed or phased diagnostics, the end of
// progress); Main stops and joins it before it returns, dropping answers
// still delayed. All frames are
// written under one mutex, one write call per frame.
package fakelsp
