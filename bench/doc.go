// Package bench holds agentlsp's benchmarks: the cost of each layer measured
// side by side against the layer below it, on the fake language server
// (the test binary re-executed, so the server costs next to nothing):
//
//   - request_bench_test.go and routing_bench_test.go: message routing, a
//     hover round trip over the bare transport, through the server actor,
//     through the router, and through the whole embedding API;
//   - sync_bench_test.go: document sync, SyncDocument round trips and
//     one-line edits of large documents, incremental against full sync;
//   - diagnostics_bench_test.go: the diagnostics pipeline, Session.Edit to
//     fresh diagnostics on a pull-capable and on a pushing fake (overhead
//     beyond the settle window as a metric), against the same exchange on a
//     bare connection;
//   - dedup_bench_test.go: the dedup structures on large inputs;
//   - framing_bench_test.go: JSON-RPC framing through transport.Conn on a
//     unix socket to an in-process echo peer, against hand-written framing.
//
// Run them with
//
//	go test -run '^$' -bench . -benchmem ./bench/
//
// The load harness, many agent sessions editing and navigating in parallel
// against the runtime and its baselines, is the command bench/cmd/loadharness.
// docs/BENCHMARKS.md records the machine, the commands and the results.
// Timing targets are checked here and there, never in unit tests.
//
// Every benchmark shuts down what it starts; TestMain (testenv.Main) checks
// that no goroutine or child process outlives them.
package bench
