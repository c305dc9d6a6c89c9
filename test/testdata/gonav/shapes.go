// Package gonav is a small module with exact answers for navigation tests:
// an interface with two implementations, a function called from two
// places, and methods.
package gonav

import "math"

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

// Square is a square with a side.
type Square struct {
	Side float64
}

// Area returns the area of the square.
func (s Square) Area() float64 {
	return s.Side * s.Side
}

// Circle is a circle with a radius.
type Circle struct {
	Radius float64
}

// Area returns the area of the circle.
func (c Circle) Area() float64 {
	return math.Pi * c.Radius * c.Radius
}
