module example.com/fill

go 1.22
