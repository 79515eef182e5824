module seedfall.dev/examples/bbolt

go 1.26

require (
	go.etcd.io/bbolt v1.4.3
	seedfall.dev/sdk v0.0.0
)

require golang.org/x/sys v0.29.0 // indirect

replace seedfall.dev/sdk => ../../sdk/go
