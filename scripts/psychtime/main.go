// Command psychtime is the helper of scripts/psych_speed.R: it prints the
// CPU time (user + system, from getrusage) of the default fit
// (pairwise.Learn with one worker) of each file, the least of -reps fits,
// with the number of edges:
//
//	psychtime [-reps 3] FILE...
//	    FILE,milliseconds,edges
//
// The file is read before the clock starts, as the R side reads its data
// before timing IsingFit. Run it with GOMAXPROCS=1 to keep the runtime's
// background work on the fit's core. Linux and other Unix systems only
// (syscall.Getrusage).
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"

	"github.com/mrfkit/pairwise"
)

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func main() {
	reps := flag.Int("reps", 3, "fits a file; the least CPU time is printed")
	flag.Parse()
	if *reps < 1 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: psychtime [-reps 3] FILE...")
		os.Exit(2)
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		s, err := pairwise.ReadCSV(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		best, edges := 0.0, 0
		for r := 0; r < *reps; r++ {
			t := cpuSeconds()
			res, err := pairwise.Learn(s, pairwise.WithWorkers(1))
			d := cpuSeconds() - t
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				os.Exit(1)
			}
			if r == 0 || d < best {
				best = d
			}
			edges = len(res.Edges)
		}
		fmt.Printf("%s,%.2f,%d\n", name, 1000*best, edges)
	}
}
