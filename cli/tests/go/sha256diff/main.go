// sha256diff: SHA-256 and SHA-224 of pseudo-random messages, whole and
// streamed in random pieces, and HMAC-SHA256, summarized as one FNV-1a per
// kind. Lengths cluster around the 64-byte block boundaries, where a native
// intrinsic that handled one block too many or too few would show, and
// messages start at random offsets of one buffer. The same output natively,
// and under seedfall with and without its intrinsics, is the differential
// test of the SHA-256 intrinsic (cli/tests/intrinsics.rs; ci/cross/aarch64.sh
// passes a smaller count than the default 3,000 as the first argument).
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
)

func main() {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<20+4096)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	whole, small, streamed, mac := fnv.New64a(), fnv.New64a(), fnv.New64a(), fnv.New64a()
	count := 3000
	if len(os.Args) > 1 {
		count, _ = strconv.Atoi(os.Args[1])
	}
	for i := 0; i < count; i++ {
		var n int
		switch i % 3 {
		case 0:
			n = rng.IntN(4096)
		case 1:
			n = 64*rng.IntN(20) + rng.IntN(19) - 9
		default:
			n = 64*rng.IntN(3) + rng.IntN(130)
		}
		if i%500 == 0 {
			n = 1<<20 + rng.IntN(200)
		}
		n = max(n, 0)
		at := rng.IntN(len(buf) - n + 1)
		msg := buf[at : at+n]

		sum := sha256.Sum256(msg)
		whole.Write(sum[:])
		sum224 := sha256.Sum224(msg)
		small.Write(sum224[:])

		h := sha256.New()
		for rest := msg; len(rest) > 0; {
			k := min(len(rest), rng.IntN(300))
			h.Write(rest[:k])
			rest = rest[k:]
		}
		streamed.Write(h.Sum(nil))

		m := hmac.New(sha256.New, buf[:rng.IntN(100)])
		m.Write(msg)
		mac.Write(m.Sum(nil))
		// The buffer changes between messages, so no two see the same bytes.
		buf[at%len(buf)] ^= byte(i)
	}
	fmt.Printf("sha256 %016x\nsha224 %016x\nstreamed %016x\nhmac %016x\n",
		whole.Sum64(), small.Sum64(), streamed.Sum64(), mac.Sum64())
}
