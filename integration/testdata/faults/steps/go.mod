module example.com/steps

go 1.22
