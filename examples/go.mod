module seedfall.dev/examples

go 1.26
