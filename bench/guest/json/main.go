// json: encoding/json marshal and unmarshal of a slice of nested structs.
package main

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
)

type Address struct {
	Street string `json:"street"`
	City   string `json:"city"`
	Zip    int    `json:"zip"`
}

type Person struct {
	ID      int               `json:"id"`
	Name    string            `json:"name"`
	Email   string            `json:"email"`
	Score   float64           `json:"score"`
	Active  bool              `json:"active"`
	Tags    []string          `json:"tags"`
	Address Address           `json:"address"`
	Meta    map[string]string `json:"meta"`
}

func main() {
	x := uint32(7)
	next := func() uint32 { x = x*1664525 + 1013904223; return x >> 8 }
	people := make([]Person, 2000)
	for i := range people {
		people[i] = Person{
			ID:      i,
			Name:    fmt.Sprintf("person-%d", next()%100000),
			Email:   fmt.Sprintf("p%d@example.com", next()%100000),
			Score:   float64(next()%100000) / 7.0,
			Active:  next()%2 == 0,
			Tags:    []string{"a", "bb", fmt.Sprint(next() % 1000)},
			Address: Address{Street: fmt.Sprintf("%d Main St", next()%1000), City: "Springfield", Zip: int(next() % 99999)},
			Meta:    map[string]string{"k1": "v1", "k2": fmt.Sprint(next() % 77)},
		}
	}
	var crc uint32
	total := 0
	for round := 0; round < 12; round++ {
		data, err := json.Marshal(people)
		if err != nil {
			panic(err)
		}
		crc = crc32.Update(crc, crc32.IEEETable, data)
		var back []Person
		if err := json.Unmarshal(data, &back); err != nil {
			panic(err)
		}
		for i := range back {
			total += back[i].ID + back[i].Address.Zip + len(back[i].Tags)
		}
		people[round].Score += 1
	}
	fmt.Printf("json: checksum=%08x total=%d\n", crc, total)
}
