module seedfall.dev/bench/guest

go 1.26
