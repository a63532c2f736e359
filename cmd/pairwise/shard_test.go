package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestShardPipeline runs the sharded pipeline as a cluster would, each step
// a separate process of the built command: m shards of "learn -shard" (the
// index from the flag, or from the environment variables of Kubernetes,
// Slurm and AWS Batch), then "merge"; the merged edges (JSON, with the edge
// test's statistics) and model must be byte for byte those of one "learn"
// process with the same flags, for m = 1, 2 and 7, k = 2 and k = 3, with λ
// and η given and tuning-free.
func TestShardPipeline(t *testing.T) {
	bin := buildCommand(t)
	grid, survey := filepath.Join("..", "..", "testdata", "grid.csv"), filepath.Join("..", "..", "testdata", "survey.csv")
	cases := []struct {
		name  string
		file  string
		read  []string // how the data are read, for learn and for merge -data
		learn []string
	}{
		{"k=2/given", grid, nil, []string{"-lambda", "2.5", "-eta", "0.4"}},
		{"k=2/tuning-free", grid, nil, nil},
		{"k=3/given", survey, []string{"-histogram"}, []string{"-lambda", "2.4", "-eta", "0.6"}},
		{"k=3/tuning-free", survey, []string{"-histogram"}, []string{"-scale", "nominal"}},
		// The ordinal model, which -scale auto would choose for the
		// survey's answers, given here.
		{"k=3/ordinal", survey, []string{"-histogram"}, []string{"-scale", "ordinal"}},
	}
	// envs[e] runs shard i of m with the index taken from one engine's
	// variables.
	envs := []func(i, m int) (flag string, env []string){
		func(i, m int) (string, []string) { return fmt.Sprintf("%d/%d", i, m), nil },
		func(i, m int) (string, []string) {
			return fmt.Sprintf("auto/%d", m), []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}
		},
		func(i, m int) (string, []string) { // --array=1-m
			return "auto", []string{fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i+1), "SLURM_ARRAY_TASK_MIN=1", fmt.Sprintf("SLURM_ARRAY_TASK_COUNT=%d", m)}
		},
		func(i, m int) (string, []string) {
			return "auto", []string{fmt.Sprintf("AWS_BATCH_JOB_ARRAY_INDEX=%d", i), fmt.Sprintf("PAIRWISE_SHARDS=%d", m)}
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			at := func(name string) string { return filepath.Join(dir, name) }
			args := append(append([]string{"learn", "-quiet", "-workers", "2"}, c.read...), c.learn...)
			runBinary(t, bin, append(args, "-format", "json", "-o", at("want.json"), "-model-out", at("want.model.json"), c.file)...)
			want := readAll(t, at("want.json"), at("want.model.json"))
			for _, m := range []int{1, 2, 7} {
				var parts []string
				for i := 0; i < m; i++ {
					flag, env := envs[(i+m)%len(envs)](i, m)
					part := at(fmt.Sprintf("part-%d-of-%d.json", i, m))
					switch m {
					case 2:
						part += ".gz"
					case 7:
						// One path for all tasks, merged by a pattern,
						// as the cluster recipes do.
						part = at("seven-{shard}.json")
					}
					cmd := exec.Command(bin, append(args, "-workers", fmt.Sprint(1+i%2), "-shard", flag, "-o", part, c.file)...)
					cmd.Env = append(cleanShardEnv(), env...)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("shard %d of %d (%s %v): %v\n%s", i, m, flag, env, err, out)
					}
					parts = append(parts, part)
				}
				if m == 7 {
					parts = []string{at("seven-*.json")}
				}
				margs := append([]string{"merge", "-quiet", "-data", c.file}, c.read...)
				margs = append(margs, "-format", "json", "-o", at("got.json"), "-model-out", at("got.model.json"))
				runBinary(t, bin, append(margs, parts...)...)
				got := readAll(t, at("got.json"), at("got.model.json"))
				if !bytes.Equal(got, want) {
					t.Fatalf("m = %d: the merged output differs from one process's:\n%s\nwant\n%s", m, got, want)
				}
			}
			if !bytes.Contains(want, []byte(`"edges": [`+"\n")) {
				t.Fatalf("no edge learned: the case tests nothing\n%s", want)
			}
		})
	}
}

// readAll returns the concatenated contents of the files.
func readAll(t *testing.T, paths ...string) []byte {
	t.Helper()
	var b []byte
	for _, p := range paths {
		c, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, c...)
	}
	return b
}

// cleanShardEnv returns the environment without the variables that
// "-shard auto" reads, so that the test does not depend on where it runs
// (a CI job may itself be a Kubernetes or Slurm task).
func cleanShardEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "PAIRWISE_SHARD", "PAIRWISE_SHARDS", "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID",
			"SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP", "SLURM_ARRAY_TASK_COUNT", "AWS_BATCH_JOB_ARRAY_INDEX":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// TestResolveShard checks -shard's forms and the precedence of the
// environment variables.
func TestResolveShard(t *testing.T) {
	cases := []struct {
		flag     string
		env      map[string]string
		shard    int
		of       int
		source   string
		wantFail string
	}{
		{flag: "3/7", shard: 3, of: 7, source: "-shard"},
		{flag: "3/7", env: map[string]string{"JOB_COMPLETION_INDEX": "1"}, shard: 3, of: 7, source: "-shard"},
		{flag: "0/1", shard: 0, of: 1, source: "-shard"},
		{flag: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, shard: 2, of: 4, source: "JOB_COMPLETION_INDEX"},
		{flag: "auto/4", env: map[string]string{"AWS_BATCH_JOB_ARRAY_INDEX": "3"}, shard: 3, of: 4, source: "AWS_BATCH_JOB_ARRAY_INDEX"},
		{flag: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"}, shard: 4, of: 8, source: "SLURM_ARRAY_TASK_ID"},
		{flag: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, shard: 3, of: 4, source: "SLURM_ARRAY_TASK_ID"},
		{flag: "auto", env: map[string]string{"PAIRWISE_SHARD": "1", "JOB_COMPLETION_INDEX": "0", "PAIRWISE_SHARDS": "2"}, shard: 1, of: 2, source: "PAIRWISE_SHARD"},
		{flag: "auto", env: map[string]string{"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "0", "PAIRWISE_SHARDS": "2", "SLURM_ARRAY_TASK_COUNT": "9"}, shard: 1, of: 2, source: "JOB_COMPLETION_INDEX"},
		{flag: "7/7", wantFail: "0 ≤ i < 7"},
		{flag: "-1/7", wantFail: "0 ≤ i < 7"},
		{flag: "3", wantFail: "want i/m"},
		{flag: "1/0", wantFail: "not a positive integer"},
		{flag: "auto/4", wantFail: "none of"},
		{flag: "auto", env: map[string]string{"JOB_COMPLETION_INDEX": "1"}, wantFail: "number of shards is not known"},
		{flag: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "4"}, wantFail: "want 0 ≤ shard < 4"},
		{flag: "auto/4", env: map[string]string{"JOB_COMPLETION_INDEX": "x"}, wantFail: "not an integer"},
		{flag: "auto", env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, wantFail: "multiple of STEP"},
	}
	for _, c := range cases {
		getenv := func(name string) string { return c.env[name] }
		shard, of, source, err := resolveShard(c.flag, getenv)
		if c.wantFail != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantFail) {
				t.Errorf("-shard %s %v: error %v, want one containing %q", c.flag, c.env, err, c.wantFail)
			}
			continue
		}
		if err != nil || shard != c.shard || of != c.of || source != c.source {
			t.Errorf("-shard %s %v: %d of %d from %s (%v), want %d of %d from %s", c.flag, c.env, shard, of, source, err, c.shard, c.of, c.source)
		}
	}
}

// TestMergeErrors checks the merge's errors for a user: the refit stage
// without -data, parts of another run, and -format with -shard.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	grid := filepath.Join("..", "..", "testdata", "grid.csv")
	part := filepath.Join(dir, "part.json")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"learn", "-quiet", "-shard", "0/1", "-o", part, grid}, &stdout, &stderr); code != 0 {
		t.Fatalf("learn -shard: exit %d\n%s", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"merge", "-quiet", part}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "-data") {
		t.Fatalf("merge without -data: exit %d, %q, want an error naming -data", code, stderr.String())
	}
	stderr.Reset()
	if code := run([]string{"learn", "-quiet", "-shard", "0/1", "-format", "dot", "-o", part, grid}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "-format does not apply") {
		t.Fatalf("learn -shard -format: exit %d, %q", code, stderr.String())
	}
	stderr.Reset()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format": "other"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := run([]string{"merge", "-quiet", bad}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), "bad.json") {
		t.Fatalf("merge of a bad file: exit %d, %q, want an error naming the file", code, stderr.String())
	}
}

// TestShardPipelineSparse runs the sharded pipeline of the tuning-free
// default on the path of its sparse edge test: binary data of more than
// 256 variables (the support-model test, which the learner takes past
// MaxLearnEntries too, so this path is the one a file of n > 16,384
// takes; the file is kept small for CI). Each shard writes its first
// pass (format pairwise-partial/4), "merge -data" runs the global stage,
// and the edges (JSON, with the test's statistics) and the model must be
// byte for byte those of one "learn" process, for 2 and 3 shards, plain
// and gzip-compressed parts.
func TestShardPipelineSparse(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of CPU: the learner on 300 variables, five times")
	}
	bin := buildCommand(t)
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	data := at("spins300.csv")
	if err := os.WriteFile(data, []byte(chainSpins(t, 300, 400)), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"learn", "-quiet", "-workers", "2"}
	runBinary(t, bin, append(args, "-format", "json", "-o", at("want.json"), "-model-out", at("want.model.json"), data)...)
	want := readAll(t, at("want.json"), at("want.model.json"))
	if !bytes.Contains(want, []byte(`"edges": [`+"\n")) {
		t.Fatalf("no edge learned: the case tests nothing\n%.400s", want)
	}
	for _, m := range []int{2, 3} {
		var parts []string
		for i := 0; i < m; i++ {
			part := at(fmt.Sprintf("part-%d-of-%d.json", i, m))
			if m == 3 {
				part += ".gz"
			}
			runBinary(t, bin, append(args, "-workers", fmt.Sprint(1+i%2), "-shard", fmt.Sprintf("%d/%d", i, m), "-o", part, data)...)
			parts = append(parts, part)
		}
		head, err := os.ReadFile(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		if m == 2 && !bytes.Contains(head[:min(len(head), 80)], []byte(`"pairwise-partial/4"`)) {
			t.Fatalf("the part is not the sparse test's format: %.80s", head)
		}
		runBinary(t, bin, append([]string{"merge", "-quiet", "-data", data, "-format", "json", "-o", at("got.json"), "-model-out", at("got.model.json")}, parts...)...)
		got := readAll(t, at("got.json"), at("got.model.json"))
		if !bytes.Equal(got, want) {
			t.Fatalf("m = %d: the merged output differs from one process's", m)
		}
		if m == 2 {
			// Without -data the merge says that the second pass reads
			// the samples.
			out, err := exec.Command(bin, append([]string{"merge", "-quiet", "-o", at("no.csv")}, parts...)...).CombinedOutput()
			if err == nil || !bytes.Contains(out, []byte("second pass reads the samples: give them with -data")) {
				t.Errorf("merge without -data: %v, %s", err, out)
			}
		}
	}
}

// chainSpins returns the CSV text of rows samples of n spins with a
// header: a chain whose coupled neighbours agree with probability 0.8,
// drawn directly (each spin from the one before it, fair at the start of
// each block of 10), seed fixed.
func chainSpins(t *testing.T, n, rows int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(33, 300))
	var b strings.Builder
	for j := 0; j < n; j++ {
		if j > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "x%d", j)
	}
	b.WriteByte('\n')
	for m := 0; m < rows; m++ {
		prev := 0
		for j := 0; j < n; j++ {
			v := r.IntN(2)
			if j%10 != 0 && r.Float64() < 0.8 {
				v = prev
			}
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", v)
			prev = v
		}
		b.WriteByte('\n')
	}
	return b.String()
}
