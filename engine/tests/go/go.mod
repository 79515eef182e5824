module seedfall.dev/enginetests

go 1.26
