package host_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/benchsup/benchsup/host"
)

// A run claims its CPUs first, then waits for them to be quiet: waiting
// for quiet before claiming would leave the verdict stale by the time the
// claim came through.
func Example() {
	ctx := context.Background()
	cpus, err := host.ParseCPUList("2-3")
	if err != nil {
		log.Fatal(err)
	}
	claim, err := host.Claim(ctx, host.ClaimConfig{CPUs: cpus, Command: "benchsup run ./..."}, func(h host.Holder) {
		fmt.Println("waiting for the host claim:", h)
	})
	if err != nil {
		log.Fatal(err)
	}
	defer claim.Release()

	quiet, err := host.WaitQuiet(ctx, host.QuiescenceConfig{CPUs: cpus}, nil, func(o host.Observation) {
		fmt.Println("waiting for a quiet host:", o)
	})
	var nq *host.NotQuietError
	if errors.As(err, &nq) {
		log.Fatalf("not measuring under known load: %v", err)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println(claim.Report().CPUs, quiet.WaitedNs)
}
