module example.com/svca

go 1.22
