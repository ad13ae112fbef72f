module example.com/demo

go 1.26.0

require github.com/benchsup/benchsup v0.0.0

replace github.com/benchsup/benchsup => ../
