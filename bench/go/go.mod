module seedfall.dev/bench

go 1.26
