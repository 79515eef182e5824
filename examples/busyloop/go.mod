module seedfall.dev/examples/busyloop

go 1.26
