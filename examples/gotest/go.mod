module seedfall.dev/examples/gotest

go 1.26
