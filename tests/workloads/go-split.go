// go-split: CPU time split between two named Go functions, for checking
// -g auto on Go code.
// hashLoop spends its time in crypto/sha256's assembly block function,
// which uses rbp as a general register, so a frame-pointer walk from a
// sample there loses hashLoop; otherWork spins in Go code of its own.
// Each round hashes 256 KiB and spins 4 times, so hashLoop takes a fifth
// to a third of the CPU, as fast as the CPU's sha256 is; a test knows its
// true share from the samples' leaves (sha256's code or hashLoop), which
// no unwinding decides.  Runs for SECONDS (default 5) of wall time.
package main

import (
	"crypto/sha256"
	"os"
	"strconv"
	"time"
)

var buf [64 << 10]byte
var sink uint64

//go:noinline
func hashLoop() {
	for i := 0; i < 4; i++ {
		s := sha256.Sum256(buf[:])
		sink += uint64(s[0])
	}
}

//go:noinline
func otherWork() {
	x := sink
	for i := 0; i < 300000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

func main() {
	secs := 5.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	for time.Now().Before(end) {
		hashLoop()
		for j := 0; j < 4; j++ {
			otherWork()
		}
	}
}
