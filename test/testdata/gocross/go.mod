module example.com/cross

go 1.22
