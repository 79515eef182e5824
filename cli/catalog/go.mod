module seedfall.dev/catalog

go 1.22
