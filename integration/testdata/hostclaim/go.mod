module example.com/hostclaim

go 1.22
