module seedfall.dev/examples/wals

go 1.26

require (
	github.com/rosedblabs/rosedb/v2 v2.4.0
	github.com/rosedblabs/wal v1.3.8
	github.com/tidwall/wal v1.2.1
	seedfall.dev/sdk v0.0.0
)

require (
	github.com/bwmarrin/snowflake v0.3.0 // indirect
	github.com/gofrs/flock v0.8.1 // indirect
	github.com/google/btree v1.1.2 // indirect
	github.com/kr/pretty v0.3.1 // indirect
	github.com/robfig/cron/v3 v3.0.0 // indirect
	github.com/tidwall/gjson v1.10.2 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.0 // indirect
	github.com/tidwall/tinylru v1.1.0 // indirect
	github.com/valyala/bytebufferpool v1.0.0 // indirect
	golang.org/x/sys v0.11.0 // indirect
)

replace seedfall.dev/sdk => ../../sdk/go
