module seedfall.dev/clitests

go 1.26
