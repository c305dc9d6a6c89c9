package main

import "fmt"

// Greeting returns the greeting for name.
func Greeting(name string) string {
	return "hello, " + name
}

func main() {
	fmt.Println(Greeting("agent"))
}
