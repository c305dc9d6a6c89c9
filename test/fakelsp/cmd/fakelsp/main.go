// Command fakelsp is the scripted fake language server of package
// github.com/agentlsp/agentlsp/test/fakelsp, for tests and manual runs.
// Run it with -h for its flags.
package main

import (
	"os"

	"github.com/agentlsp/agentlsp/test/fakelsp"
)

func main() {
	os.Exit(fakelsp.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
