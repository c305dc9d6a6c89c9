package router

// SetReadHook has hook run before each read of a file from disk, and what
// it returns after the read; set it before the router starts.
func SetReadHook(hook func(abs string) (after func())) (restore func()) {
	old := readHook
	readHook = hook
	return func() { readHook = old }
}
