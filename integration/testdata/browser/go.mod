module example.com/browser

go 1.24

require github.com/benchsup/benchsup v0.0.0

// The test points this at the source tree under test and runs go mod tidy.
replace github.com/benchsup/benchsup => ../../..
