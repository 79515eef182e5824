module seedfall.dev/examples/wals

go 1.26

require (
	github.com/rosedblabs/wal v1.3.8
	github.com/tidwall/wal v1.2.1
	seedfall.dev/sdk v0.0.0
)

require (
	github.com/tidwall/gjson v1.10.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/tinylru v1.1.0 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
)

replace seedfall.dev/sdk => ../../sdk/go
