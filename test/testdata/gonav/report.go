package gonav

import "fmt"

// Report describes the total area of shapes.
func Report(shapes []Shape) string {
	greeting, n := "héllo 😀", Total(shapes)
	return fmt.Sprintf("%s %.2f", greeting, n)
}

// Summary is the total area of a unit circle and a square of side 2.
func Summary() float64 {
	return Total([]Shape{Square{Side: 2}, Circle{Radius: 1}})
}
