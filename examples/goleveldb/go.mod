module seedfall.dev/examples/goleveldb

go 1.26

require (
	github.com/syndtr/goleveldb v1.0.0
	seedfall.dev/sdk v0.0.0
)

require github.com/golang/snappy v0.0.0-20180518054509-2e65f85255db // indirect

replace seedfall.dev/sdk => ../../sdk/go
