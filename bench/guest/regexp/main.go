// regexp: several regexps (literal-prefixed, alternations, captures) over generated log lines.
package main

import (
	"fmt"
	"regexp"
	"strings"
)

func main() {
	x := uint32(9)
	next := func() uint32 { x = x*1664525 + 1013904223; return x >> 8 }
	methods := []string{"GET", "POST", "PUT", "DELETE"}
	var b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&b, "2024-01-%02d 12:%02d:%02d %s /api/v%d/items/%d?user=u%d status=%d bytes=%d host=node%d.example.com\n",
			next()%28+1, next()%60, next()%60, methods[next()%4], next()%3+1, next()%100000, next()%5000,
			[]int{200, 201, 404, 500}[next()%4], next()%100000, next()%16)
	}
	text := b.String()
	res := []*regexp.Regexp{
		regexp.MustCompile(`(GET|POST) /api/v(\d)/items/(\d+)`),
		regexp.MustCompile(`status=(5\d\d)`),
		regexp.MustCompile(`user=u(\d*7)\b`),
		regexp.MustCompile(`host=node(1[0-5])\.example\.com`),
		regexp.MustCompile(`(?i)delete\s+/API/v3/items/\d{3}\?`),
	}
	var check uint64
	for round := 0; round < 1; round++ {
		for i, re := range res {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				check = check*131 + uint64(len(m[len(m)-1])) + uint64(i)
			}
		}
	}
	fmt.Printf("regexp: checksum=%016x\n", check)
}
