# R's IsingFit itself (van Borkulo et al. 2014; CRAN package IsingFit, which
# Debian lacks: install it from its source once r-cran-qgraph and
# r-cran-glmnet are installed, `R CMD INSTALL IsingFit/`) on the truths and
# data sets that `cd study && go run . psych -export DIR` writes
# (truth-SEED.json, data-SEED-N.csv with answers 0/1 and a header), with its
# defaults (EBIC gamma = 0.25, AND rule), for the psych study's comparison
# (docs/psych/power.md). Needs r-cran-jsonlite too.
#
#   Rscript scripts/isingfit_run.R DIR 101,102,...,120 100,250,500,1000,2500
#
# prints one line a data set: seed,N,true edges found,false edges,edges,
# true edges,seconds,cpu (the wall time and the CPU seconds, user + system,
# of the IsingFit call alone; the data are read before the clocks start).
suppressMessages(library(IsingFit))
# truth_adjacency, from the file next to this script (Rscript's --file=).
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
source(file.path(dirname(self), "isingfit_truth.R"))
args <- commandArgs(TRUE)
if (length(args) != 3) stop("usage: isingfit_run.R DIR SEEDS Ns")
dir <- args[1]
seeds <- as.integer(strsplit(args[2], ",")[[1]])
sizes <- as.integer(strsplit(args[3], ",")[[1]])
cat("seed,N,tp,fp,edges,true,seconds,cpu\n")
for (seed in seeds) {
  adj <- truth_adjacency(dir, seed)
  p <- nrow(adj)
  up <- upper.tri(adj)
  for (N in sizes) {
    x <- as.matrix(read.csv(file.path(dir, sprintf("data-%d-%d.csv", seed, N))))
    t0 <- Sys.time()
    c0 <- proc.time()
    fit <- suppressWarnings(IsingFit(x, family = "binomial", AND = TRUE, gamma = 0.25,
      plot = FALSE, progressbar = FALSE))
    secs <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    cpu <- sum((proc.time() - c0)[1:2])
    # IsingFit leaves out items with too little variance: their rows and
    # columns of weiadj are missing, so map by name.
    edge <- matrix(FALSE, p, p)
    w <- fit$weiadj
    idx <- match(colnames(w), colnames(x))
    edge[idx, idx] <- w != 0
    cat(sprintf("%d,%d,%d,%d,%d,%d,%.4f,%.3f\n", seed, N, sum(edge[up] & adj[up]),
      sum(edge[up] & !adj[up]), sum(edge[up]), sum(adj[up]), secs, cpu))
  }
}
