// Command whereami prints what a program learns of where it runs: its
// working directory, its name, the environment and a file read by a
// relative path. cli/tests/exec.rs runs it from two directories to show
// that none of it depends on the host's paths or user.
package main

import (
	"fmt"
	"os"
	"sort"
)

func main() {
	wd, err := os.Getwd()
	fmt.Println("cwd:", wd, err)
	fmt.Println("name:", os.Args[0])
	env := os.Environ()
	sort.Strings(env)
	fmt.Println("env:", env)
	fmt.Println("tmp:", os.TempDir())
	data, err := os.ReadFile("data.txt")
	fmt.Printf("data.txt: %q %v\n", data, err)
}
