module example.com/gosym

go 1.25
