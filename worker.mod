module github.com/benchsup/benchsup

go 1.21

require (
	github.com/vmihailenco/msgpack/v5 v5.4.1
	golang.org/x/sys v0.15.0
)

require github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
