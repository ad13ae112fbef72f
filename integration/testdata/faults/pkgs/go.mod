module example.com/pkgs

go 1.22
