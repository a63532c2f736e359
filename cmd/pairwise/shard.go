package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/mrfkit/pairwise"
	"github.com/mrfkit/pairwise/cmd/cli"
)

// Sharded learning on a cluster: "pairwise learn -shard i/m" learns every
// m-th node (pairwise.LearnShard) and writes a partial result; "pairwise
// merge PARTS..." assembles them (pairwise.MergePartials). docs/cluster
// has a Kubernetes Indexed Job and a Slurm array script that run them.

// shardEnv lists, in order of precedence, the environment variables from
// which "-shard auto" reads the shard's index: our own, then those that
// Kubernetes Indexed Jobs, Slurm job arrays and AWS Batch array jobs set.
var shardEnv = []string{"PAIRWISE_SHARD", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"}

// shardHelp documents -shard in the flags of "pairwise learn".
const shardHelp = "learn only shard `i/m` of the nodes (every m-th node from i, 0 ≤ i < m) and write a partial result\n" +
	"as JSON for 'pairwise merge' (gzip-compressed when -o ends in .gz; {shard} in -o is replaced by i); \"auto/m\" or \"auto\" read i from\n" +
	"the first of PAIRWISE_SHARD, JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID (Slurm, counted from\n" +
	"SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP) and AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) that is set,\n" +
	"and m, when not given, from PAIRWISE_SHARDS or SLURM_ARRAY_TASK_COUNT"

// resolveShard returns the shard index and count that the -shard value v
// names: "i/m" explicitly (the environment is not read), "auto/m" with
// the index from the environment, "auto" with both from it (see
// shardHelp). source says where the index came from.
func resolveShard(v string, getenv func(string) string) (shard, of int, source string, err error) {
	fail := func(format string, args ...any) (int, int, string, error) {
		return 0, 0, "", fmt.Errorf("-shard "+format, args...)
	}
	// env reads an environment variable's integer (at least min), def
	// when it is not set.
	env := func(name string, min, def int) (int, error) {
		e := getenv(name)
		if e == "" {
			return def, nil
		}
		if x, err := strconv.Atoi(e); err == nil && x >= min {
			return x, nil
		}
		if min == 1 {
			return 0, fmt.Errorf("-shard auto: %s=%q is not a positive integer", name, e)
		}
		return 0, fmt.Errorf("-shard auto: %s=%q is not an integer", name, e)
	}
	index, count, hasCount := strings.Cut(v, "/")
	if of, err = strconv.Atoi(count); hasCount && (err != nil || of < 1) {
		return fail("%q: the number of shards %q is not a positive integer", v, count)
	}
	if index != "auto" {
		if !hasCount {
			return fail("%q: want i/m (shard i of m), auto/m or auto", v)
		}
		if shard, err = strconv.Atoi(index); err != nil || shard < 0 || shard >= of {
			return fail("%q: want a shard index i with 0 ≤ i < %d", v, of)
		}
		return shard, of, "-shard", nil
	}
	for _, name := range []string{"PAIRWISE_SHARDS", "SLURM_ARRAY_TASK_COUNT"} {
		if !hasCount && of == 0 {
			if of, err = env(name, 1, 0); err != nil {
				return 0, 0, "", err
			}
		}
	}
	if of == 0 {
		return fail("auto: the number of shards is not known: give it as -shard auto/m or in PAIRWISE_SHARDS")
	}
	for _, name := range shardEnv {
		if getenv(name) == "" {
			continue
		}
		if shard, err = env(name, math.MinInt, 0); err != nil {
			return 0, 0, "", err
		}
		if name == "SLURM_ARRAY_TASK_ID" {
			// --array=1-8 or --array=0-14:2 number the tasks from MIN
			// in steps of STEP.
			lo, err := env("SLURM_ARRAY_TASK_MIN", math.MinInt, 0)
			if err != nil {
				return 0, 0, "", err
			}
			step, err := env("SLURM_ARRAY_TASK_STEP", 1, 1)
			if err != nil {
				return 0, 0, "", err
			}
			if (shard-lo)%step != 0 {
				return fail("auto: SLURM_ARRAY_TASK_ID=%d is not MIN %d plus a multiple of STEP %d", shard, lo, step)
			}
			shard = (shard - lo) / step
		}
		if shard < 0 || shard >= of {
			return fail("auto: %s gives shard %d, want 0 ≤ shard < %d shards", name, shard, of)
		}
		return shard, of, name, nil
	}
	return fail("auto: none of %s is set", strings.Join(shardEnv, ", "))
}

// runLearnShard is "pairwise learn -shard": it learns the shard's nodes
// with opts and writes the partial result to out. set holds the flags
// given, of which -format and -model-out do not apply.
func runLearnShard(v string, set map[string]bool, path string, ro pairwise.CSVOptions, opts []pairwise.Option, out string, stdout, stderr io.Writer, quiet bool) error {
	for _, name := range []string{"format", "model-out"} {
		if set[name] {
			return fmt.Errorf("-%s does not apply with -shard: a shard writes a partial result; 'pairwise merge' writes the output", name)
		}
	}
	shard, of, source, err := resolveShard(v, os.Getenv)
	if err != nil {
		return err
	}
	s, name, err := cli.ReadSamples(path, stdin, ro, stderr, quiet)
	if err != nil {
		return err
	}
	debug.FreeOSMemory() // as learnFile
	nodes, err := pairwise.ShardNodes(s.Vars(), shard, of)
	if err != nil {
		return err
	}
	var p *pairwise.Partial
	t0 := time.Now()
	if err := cli.During(stderr, "learning", len(nodes), quiet, func(ctx context.Context, progress func(int, int)) (err error) {
		p, err = pairwise.LearnShardContext(ctx, s, shard, of, append(opts, pairwise.WithProgress(progress))...)
		return err
	}); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(stderr, "%s: shard %d of %d (index from %s): %d of %d nodes learned in %v\n",
			name, shard, of, source, len(nodes), s.Vars(), time.Since(t0).Round(time.Millisecond))
	}
	// {shard} in the path is the shard's index, so that one command line
	// serves every task of an array job.
	out = strings.ReplaceAll(out, "{shard}", strconv.Itoa(shard))
	return cli.WriteFile(out, stdout, func(w io.Writer) error { return p.WritePartial(w, strings.HasSuffix(out, ".gz")) })
}

// readPartial reads a partial result written by "pairwise learn -shard",
// compressed or not (pairwise.ReadPartial).
func readPartial(path string) (*pairwise.Partial, error) {
	in, err := cli.Open(path, stdin)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	p, err := pairwise.ReadPartial(in.R)
	if err != nil {
		return nil, cli.FileError(in.Name, err)
	}
	return p, nil
}

// mergeUsage is the help of "pairwise merge".
const mergeUsage = `Usage: pairwise merge [flags] PART...

Merges the partial results that "pairwise learn -shard i/m" wrote, one a
shard, into the result "pairwise learn" writes with the same flags: the
per-node estimates are symmetrised and, without -eta, the edge test chooses
the graph. The result is identical, bit for bit, to the one-process run.

Without -eta, for k = 2, the edge test's refit stage needs the samples
(every node is refitted on the pairs the first stage screened, which needs
every pair's statistic): give them with -data, read as "pairwise learn"
reads them. With -refit=false or -eta at learning time, the partials are
enough. On binary data of more than 256 variables without -eta, the
shards run the first pass of the edge test that follows the graph and
the merge, with -data, its second pass: no n x n array anywhere, so the
default learns in shards past n = 16,384 too.

Examples:
  pairwise learn -lambda 2.5 -eta 0.4 -shard 0/2 -o part0.json data.csv
  pairwise learn -lambda 2.5 -eta 0.4 -shard 1/2 -o part1.json data.csv
  pairwise merge -o edges.csv part0.json part1.json
  pairwise learn -shard auto/8 -o "part-{shard}.json.gz" data.csv   (in each task of an array job)
  pairwise merge -data data.csv -format json -o edges.json "part-*.json.gz"
`

// runMerge is "pairwise merge".
func runMerge(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("merge", mergeUsage, stderr)
	format, out, modelOut := addResultFlags(fs)
	data := fs.String("data", "", "the samples `FILE` the shards learned from; needed by the edge test's refit stage (k = 2 without -eta)")
	histogram := fs.Bool("histogram", false, `with -data: the input is a histogram, lines "count,z_1,...,z_n"`)
	merge := fs.Bool("merge", true, "with -data: merge identical rows while reading (as 'pairwise learn' did)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "`goroutines` of the refit stage; results do not depend on it")
	quiet := fs.Bool("quiet", false, "no summary on standard error (warnings are still written: they change what the result means)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("missing the partial results PART...; see 'pairwise merge -h'")
	}
	if err := cli.CheckFormat(*format, learnFormats...); err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("-workers %d: want at least 1", *workers)
	}
	paths, err := partPaths(fs.Args())
	if err != nil {
		return err
	}
	parts := make([]*pairwise.Partial, len(paths))
	for x, path := range paths {
		if parts[x], err = readPartial(path); err != nil {
			return err
		}
	}
	var s *pairwise.Samples
	if *data != "" {
		if os.Getenv("GOGC") == "" {
			// As learn (learnGCPercent): the samples and the engine's
			// data hold no pointers, and the second pass of the edge
			// test makes garbage a node (at n = 3,000 the peak fell from
			// 183 to 114 MB, the CPU rose from 11.1 to 13.2 s).
			defer debug.SetGCPercent(debug.SetGCPercent(learnGCPercent(*data)))
		}
		if s, _, err = cli.ReadSamples(*data, stdin, pairwise.CSVOptions{Histogram: *histogram, Compact: *merge}, stderr, *quiet); err != nil {
			return err
		}
	}
	var res *pairwise.Result
	t0 := time.Now()
	if err := cli.During(stderr, "merging", 0, true, func(ctx context.Context, _ func(int, int)) (err error) {
		res, err = pairwise.MergePartialsContext(ctx, s, *workers, parts...)
		if errors.Is(err, pairwise.ErrRefitNeedsSamples) {
			if strings.Contains(err.Error(), "sparse edge test") {
				return errors.New("without -eta, on binary data of more than 256 variables, the edge test's second pass reads the samples: give them with -data FILE")
			}
			return errors.New("without -eta, for k = 2, the edge test's refit stage needs the samples: give them with -data FILE (or learn with -refit=false)")
		}
		return err
	}); err != nil {
		return err
	}
	names := parts[0].Names()
	if names == nil {
		names = defaultNames(parts[0].N())
	}
	if err := res.Model.SetNames(names); err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "merged %d partial results of %d variables: %d edges in %v\n", len(parts), parts[0].N(), len(res.Edges), time.Since(t0).Round(time.Millisecond))
	}
	warnings(stderr, res, false) // learner.go
	return writeResult(*format, *out, *modelOut, stdout, res, parts[0])
}

// partPaths returns the files that merge's arguments name: a path, or a
// pattern of path/filepath.Match (quoted, for a container or a job script
// that runs without a shell) that matches at least one file.
func partPaths(args []string) ([]string, error) {
	var paths []string
	for _, a := range args {
		if _, err := os.Stat(a); err == nil || !strings.ContainsAny(a, "*?[") {
			paths = append(paths, a)
			continue
		}
		m, err := filepath.Glob(a)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", a, err)
		}
		if len(m) == 0 {
			return nil, fmt.Errorf("%s: no file matches", a)
		}
		paths = append(paths, m...)
	}
	return paths, nil
}
