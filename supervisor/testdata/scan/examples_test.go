package scan_test

import "fmt"

func ExampleZed() {
	fmt.Println("z")
	// Output: z
}

func ExampleAlpha() {
	fmt.Println("b")
	fmt.Println("a")
	// Unordered output:
	// a
	// b
}

// Compiled only: no output comment.
func ExampleCompiledOnly() {
	fmt.Println("never checked")
}

func ExampleEmpty() {
	// Output:
}

func Examplelower() {
	// Output: not an example: the name goes on in lower case
}

func ExampleWithParam(x int) {
	// Output: not an example: it takes a parameter
}
