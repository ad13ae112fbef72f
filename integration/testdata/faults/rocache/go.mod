module example.com/rocache

go 1.22

require example.com/dep v1.0.0
