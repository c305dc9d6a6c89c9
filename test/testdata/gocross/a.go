package cross

// Total uses B from b.go.
func Total() int {
	return B() + 1
}
