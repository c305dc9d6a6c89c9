// Package bench holds agentlsp's benchmarks: the cost of each layer measured
// side by side against the layer below it (the raw JSON-RPC connection
// against the server actor on the same fake server, ...). Run them with
//
//	go test -run '^$' -bench . -benchmem ./bench/
//
// Timing targets are checked here, never in unit tests.
package bench
