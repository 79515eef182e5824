module seedfall.dev/sdk

go 1.22
