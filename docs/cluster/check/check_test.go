// Package check tests the cluster recipes of docs/cluster, which no cluster
// reachable from CI can run: the Kubernetes manifests are decoded strictly
// into the Job type of k8s.io/api (an unknown or misspelt field fails), their
// shard count is checked against their command, and both the manifests'
// commands and the Slurm scripts are run here, task by task with the
// variables the engines set, on the example data; their merged output must
// equal one process's byte for byte. It is a module of its own so that the
// library does not depend on k8s.io/api, and it is left out of the root's
// go.work (which would then ask for its Go version and load k8s.io/api for
// every command run from the root): run it from this directory with
// GOWORK=off go test ./... (the repository's .ci/run does).
package check

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// root is the repository's root, from this directory.
const root = "../../.."

// buildPairwise builds the command into a temporary directory, in its own
// module (cmd/pairwise, whose replace points at the root), outside the
// root's workspace, which does not list this module.
func buildPairwise(t *testing.T) string {
	t.Helper()
	// The go command on the path, as the go command itself finds it
	// (runtime.GOROOT is deprecated: it names the build's root, which a
	// test binary may not run beside).
	goTool := "go"
	dir := t.TempDir()
	cmd := exec.Command(goTool, "build", "-o", filepath.Join(dir, "pairwise"), ".")
	cmd.Dir = filepath.Join(root, "cmd", "pairwise")
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return filepath.Join(dir, "pairwise")
}

// readJob decodes a manifest strictly: a field that the Job type does not
// have is an error.
func readJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	job, err := decodeJob(b)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return job
}

// decodeJob decodes as the API server does: YAML to JSON, then
// sigs.k8s.io/json's strict decoding, which matches field names with their
// case (encoding/json would accept "completionmode") and rejects unknown
// and repeated fields.
func decodeJob(b []byte) (*batchv1.Job, error) {
	j, err := yaml.YAMLToJSONStrict(b)
	if err != nil {
		return nil, err
	}
	var job batchv1.Job
	strict, err := kjson.UnmarshalStrict(j, &job, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		return nil, fmt.Errorf("apiVersion %q, kind %q, want batch/v1 Job", job.APIVersion, job.Kind)
	}
	if len(job.Spec.Template.Spec.Containers) != 1 {
		return nil, fmt.Errorf("%d containers, want 1", len(job.Spec.Template.Spec.Containers))
	}
	return &job, nil
}

// TestStrictDecodeFails checks that the strict decoding is a check: a
// misspelt field, a field at the wrong level and a value of the wrong type
// each fail.
func TestStrictDecodeFails(t *testing.T) {
	good, err := os.ReadFile("../kubernetes/learn-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeJob(good); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to string }{
		{"  completions: 8", "  completion: 8"},
		{"  completionMode: Indexed", "  completionmode: Indexed"},
		{"      restartPolicy: Never", "      restartPolicy: Never\n      replicas: 3"},
		{"  parallelism: 8", "  parallelism: eight"},
		{"kind: Job", "kind: Deployment"},
		{"  parallelism: 8", "  parallelism: 8\n  parallelism: 4"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%q is not in the manifest", c.from)
		}
		if _, err := decodeJob([]byte(bad)); err == nil {
			t.Errorf("%q → %q: decoded without error", c.from, c.to)
		}
	}
}

// flagValue returns the argument after flag in args, or "".
func flagValue(args []string, flag string) string {
	if x := slices.Index(args, flag); x >= 0 && x+1 < len(args) {
		return args[x+1]
	}
	return ""
}

// withoutFlags returns args without the given flags and their values.
func withoutFlags(args []string, flags ...string) []string {
	var out []string
	for x := 0; x < len(args); x++ {
		if slices.Contains(flags, args[x]) {
			x++
			continue
		}
		out = append(out, args[x])
	}
	return out
}

// TestKubernetes checks the Indexed Job and its merge: their fields, the
// agreement of the shard count, of the learn's output and the merge's
// pattern and of their volumes; then it runs each pod's command with its
// JOB_COMPLETION_INDEX and the merge's, /data mapped to a temporary
// directory, and compares the result with one process's.
func TestKubernetes(t *testing.T) {
	learn := readJob(t, "../kubernetes/learn-job.yaml")
	merge := readJob(t, "../kubernetes/merge-job.yaml")
	ls, ms := learn.Spec, merge.Spec
	if ls.CompletionMode == nil || *ls.CompletionMode != batchv1.IndexedCompletion {
		t.Fatal("learn: completionMode is not Indexed: the pods get no JOB_COMPLETION_INDEX")
	}
	if ls.Completions == nil || *ls.Completions < 1 {
		t.Fatal("learn: no completions")
	}
	m := int(*ls.Completions)
	if ls.Parallelism != nil && int(*ls.Parallelism) > m {
		t.Errorf("learn: parallelism %d above completions %d", *ls.Parallelism, m)
	}
	lc, mc := ls.Template.Spec.Containers[0], ms.Template.Spec.Containers[0]
	for _, job := range []*batchv1.Job{learn, merge} {
		if p := job.Spec.Template.Spec.RestartPolicy; p != corev1.RestartPolicyNever && p != corev1.RestartPolicyOnFailure {
			t.Errorf("%s: restartPolicy %q: a Job's pods need Never or OnFailure", job.Name, p)
		}
	}
	args := append(slices.Clone(lc.Command), lc.Args...)
	if args[0] != "learn" {
		t.Fatalf("learn: the container runs %q, want the image's pairwise with learn", args)
	}
	if got := flagValue(args, "-shard"); got != fmt.Sprintf("auto/%d", m) {
		t.Fatalf("learn: -shard %q, want auto/%d to match completions", got, m)
	}
	margs := append(slices.Clone(mc.Command), mc.Args...)
	if margs[0] != "merge" {
		t.Fatalf("merge: the container runs %q, want merge", margs)
	}
	out := flagValue(args, "-o")
	if want := strings.ReplaceAll(out, "{shard}", "*"); margs[len(margs)-1] != want {
		t.Fatalf("merge reads %q, the shards write %q", margs[len(margs)-1], out)
	}
	if lc.VolumeMounts[0].MountPath != "/data" || mc.VolumeMounts[0].MountPath != "/data" ||
		ls.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != ms.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName {
		t.Fatal("learn and merge do not share the /data volume")
	}

	bin := buildPairwise(t)
	data := t.TempDir()
	copyFile(t, filepath.Join(root, "testdata", "grid.csv"), filepath.Join(data, "samples.csv"))
	if err := os.MkdirAll(filepath.Join(data, "parts"), 0o755); err != nil {
		t.Fatal(err) // the volume's directory, made once by whoever fills it
	}
	local := func(args []string) []string {
		out := make([]string, len(args))
		for x, a := range args {
			out[x] = strings.ReplaceAll(a, "/data", data)
		}
		return out
	}
	env := func(c corev1.Container) []string {
		var e []string
		for _, v := range c.Env {
			e = append(e, v.Name+"="+v.Value)
		}
		return e
	}
	for i := 0; i < m; i++ {
		run(t, bin, local(args), append(env(lc), "JOB_COMPLETION_INDEX="+strconv.Itoa(i)), "")
	}
	run(t, bin, local(margs), env(mc), "")
	// One process: the learn's flags without the shard, the merge's outputs.
	one := withoutFlags(args, "-shard", "-o")
	one = append(one[:len(one)-1], "-format", flagValue(margs, "-format"), "-o", "/data/one.json", "-model-out", "/data/one-model.json", one[len(one)-1])
	run(t, bin, local(one), env(lc), "")
	same(t, filepath.Join(data, "edges.json"), filepath.Join(data, "one.json"))
	same(t, filepath.Join(data, "model.json"), filepath.Join(data, "one-model.json"))
}

// TestSlurm runs the Slurm recipe without Slurm: submit.sh against an
// sbatch that records its arguments (the merge must depend on the array),
// learn.sbatch once per task of its --array with the variables Slurm sets,
// then merge.sbatch; the result must equal one process's.
func TestSlurm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := buildPairwise(t)
	dir := t.TempDir()
	copyFile(t, filepath.Join(root, "testdata", "grid.csv"), filepath.Join(dir, "samples.csv"))
	scripts, err := filepath.Abs("../slurm")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH")

	// submit.sh with a fake sbatch.
	fake := filepath.Join(filepath.Dir(bin), "sbatch")
	log := filepath.Join(dir, "sbatch.log")
	script := "#!/usr/bin/env bash\necho \"$@\" >> " + log + "\necho '4242;cluster'\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, bash, []string{filepath.Join(scripts, "submit.sh")}, []string{"PATH=" + path}, dir)
	calls, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(calls)), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "learn.sbatch") || !strings.Contains(lines[1], "--dependency=afterok:4242 ") || !strings.HasSuffix(lines[1], "merge.sbatch") {
		t.Fatalf("submit.sh called sbatch as\n%s\nwant the learn array, then the merge after it", calls)
	}

	learn, err := os.ReadFile(filepath.Join(scripts, "learn.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	a := regexp.MustCompile(`(?m)^#SBATCH --array=(\d+)-(\d+)$`).FindSubmatch(learn)
	if a == nil {
		t.Fatal("learn.sbatch: no #SBATCH --array=LO-HI line")
	}
	lo, _ := strconv.Atoi(string(a[1]))
	hi, _ := strconv.Atoi(string(a[2]))
	for id := lo; id <= hi; id++ {
		env := []string{"PATH=" + path, "SLURM_CPUS_PER_TASK=2",
			"SLURM_ARRAY_TASK_ID=" + strconv.Itoa(id), "SLURM_ARRAY_TASK_MIN=" + strconv.Itoa(lo),
			"SLURM_ARRAY_TASK_MAX=" + strconv.Itoa(hi), "SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(hi-lo+1)}
		run(t, bash, []string{filepath.Join(scripts, "learn.sbatch")}, env, dir)
	}
	run(t, bash, []string{filepath.Join(scripts, "merge.sbatch")}, []string{"PATH=" + path}, dir)
	run(t, bin, []string{"learn", "-quiet", "-format", "json", "-o", "one.json", "-model-out", "one-model.json", "samples.csv"}, nil, dir)
	same(t, filepath.Join(dir, "edges.json"), filepath.Join(dir, "one.json"))
	same(t, filepath.Join(dir, "model.json"), filepath.Join(dir, "one-model.json"))
}

// run runs name with args in dir (the test's directory for ""), its
// environment extended by env, and fails the test unless it succeeds.
func run(t *testing.T, name string, args, env []string, dir string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(cleanEnv(), env...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
}

// cleanEnv is the environment without the variables that select a shard,
// which the test sets itself.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "SLURM_") || strings.HasPrefix(name, "PAIRWISE_SHARD") ||
			name == "JOB_COMPLETION_INDEX" || name == "AWS_BATCH_JOB_ARRAY_INDEX" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// same fails the test unless the two files have the same bytes.
func same(t *testing.T, got, want string) {
	t.Helper()
	g, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("%s differs from the one-process %s:\n%s\nwant\n%s", got, want, g, w)
	}
	if len(g) == 0 {
		t.Fatalf("%s is empty", got)
	}
}
