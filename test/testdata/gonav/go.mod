module example.com/gonav

go 1.22
