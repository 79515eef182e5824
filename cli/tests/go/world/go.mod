module seedfall.dev/tests/world

go 1.26

require seedfall.dev/sdk v0.0.0

require github.com/antithesishq/antithesis-sdk-go v0.9.0

replace seedfall.dev/sdk => ../../../../sdk/go
