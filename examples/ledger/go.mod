module seedfall.dev/examples/ledger

go 1.26

require github.com/antithesishq/antithesis-sdk-go v0.9.0
