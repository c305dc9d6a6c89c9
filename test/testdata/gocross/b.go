package cross

// B is used by a.go.
func B() int { return 41 }
