module seedfall.dev/examples/checksumkv

go 1.26

require seedfall.dev/sdk v0.0.0

replace seedfall.dev/sdk => ../../sdk/go
