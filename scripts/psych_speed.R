# The default fit against R's IsingFit, file by file: for each data set of
# `cd study && go run . psych -export DIR` (data-SEED-N.csv, answers 0/1
# with a header), our CPU time (scripts/psychtime: pairwise.Learn with one
# worker, the least of three fits, under GOMAXPROCS=1) and then IsingFit's
# (its defaults: EBIC gamma = 0.25, AND rule; user + system of this R
# process around the call, the data read before), one right after the other
# so that a machine whose speed drifts moves both. IsingFit runs in this one
# R process throughout: a fresh R process a file would add its first-call
# overhead to every fit. Needs R's IsingFit (see isingfit_run.R).
#
#   go build -o /tmp/psychtime ./scripts/psychtime
#   Rscript scripts/psych_speed.R /tmp/psychtime DIR 101,...,110 100,250,500,1000,2500 [R]
#
# With R > 1 (default 1) each data set is timed R times, ours and IsingFit
# alternating, and the medians are printed: on a shared virtual machine the
# speed of one process can differ from the next by a third, which one pair
# of runs does not average out. Prints one line a data set:
# seed,N,ours_ms,isingfit_ms,ratio,ours_edges,isingfit_edges
suppressMessages(library(IsingFit))
args <- commandArgs(TRUE)
if (length(args) < 4 || length(args) > 5) stop("usage: psych_speed.R PSYCHTIME DIR SEEDS Ns [R]")
repeats <- if (length(args) == 5) as.integer(args[5]) else 1L
tool <- args[1]
dir <- args[2]
seeds <- as.integer(strsplit(args[3], ",")[[1]])
sizes <- as.integer(strsplit(args[4], ",")[[1]])
cat("seed,N,ours_ms,isingfit_ms,ratio,ours_edges,isingfit_edges\n")
for (seed in seeds) {
  for (N in sizes) {
    file <- file.path(dir, sprintf("data-%d-%d.csv", seed, N))
    x <- as.matrix(read.csv(file, check.names = FALSE))
    o <- numeric(repeats)
    cpu <- numeric(repeats)
    for (r in seq_len(repeats)) {
      ours <- system2(tool, c("-reps", "3", file), stdout = TRUE, env = "GOMAXPROCS=1")
      f <- strsplit(ours[length(ours)], ",")[[1]]
      o[r] <- as.numeric(f[2])
      c0 <- proc.time()
      fit <- suppressWarnings(IsingFit(x, family = "binomial", AND = TRUE, gamma = 0.25,
        plot = FALSE, progressbar = FALSE))
      cpu[r] <- 1000 * sum((proc.time() - c0)[1:2])
    }
    w <- fit$weiadj
    edges <- sum(w[upper.tri(w)] != 0)
    o <- median(o)
    cpu <- median(cpu)
    cat(sprintf("%d,%d,%.2f,%.1f,%.4f,%s,%d\n", seed, N, o, cpu, o / cpu, f[3], edges))
  }
}
