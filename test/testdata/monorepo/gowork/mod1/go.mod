module example.com/mod1

go 1.22
