module example.com/interference

go 1.22
