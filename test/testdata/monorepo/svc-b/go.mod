module example.com/svcb

go 1.22
