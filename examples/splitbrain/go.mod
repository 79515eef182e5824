module seedfall.dev/examples/splitbrain

go 1.26.0

replace seedfall.dev/sdk => ../../sdk/go

require (
	go.etcd.io/raft/v3 v3.7.0
	google.golang.org/protobuf v1.36.11
	seedfall.dev/sdk v0.0.0
)
