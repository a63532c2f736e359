# A reference for IsingFit's estimator, written from its description in van
# Borkulo et al. (2014), for the psych study (docs/psych/power.md): R's
# IsingFit package itself is not installed on the machines this study ran
# on. For every item: glmnet's l1-penalised logistic regression on the
# other items along glmnet's path of 100 penalties (intercept unpenalised),
# the penalty of lowest EBIC = -2 log-likelihood + J log N + 2 gamma J
# log(p - 1) (J the nonzero coefficients, gamma = 0.25), and an edge where
# both items' regressions keep the pair (AND rule). It needs R's glmnet and
# jsonlite (Debian: r-cran-glmnet, r-cran-jsonlite).
#
# Usage, on the truths and data sets that `go run . psych -export DIR`
# writes (truth-SEED.json, data-SEED-N.csv with answers 0/1):
#
#   Rscript scripts/isingfit_glmnet.R DIR 101,102,...,120 100,250,500,1000,2500
#
# prints one line a data set: seed,N,true edges found,false edges,edges.
suppressMessages(library(glmnet))
# truth_adjacency, from the file next to this script (Rscript's --file=).
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
source(file.path(dirname(self), "isingfit_truth.R"))
args <- commandArgs(TRUE)
if (length(args) != 3) stop("usage: isingfit_glmnet.R DIR SEEDS Ns")
dir <- args[1]
seeds <- as.integer(strsplit(args[2], ",")[[1]])
sizes <- as.integer(strsplit(args[3], ",")[[1]])
gamma <- 0.25
for (seed in seeds) {
  adj <- truth_adjacency(dir, seed)
  p <- nrow(adj)
  for (N in sizes) {
    x <- as.matrix(read.csv(file.path(dir, sprintf("data-%d-%d.csv", seed, N))))
    beta <- matrix(0, p, p)
    for (i in 1:p) {
      y <- x[, i]
      if (length(unique(y)) < 2) next # a constant item has no regression
      fit <- glmnet(x[, -i], y, family = "binomial", alpha = 1, nlambda = 100)
      prob <- predict(fit, x[, -i], type = "response")
      ll <- colSums(y * log(pmax(prob, 1e-300)) + (1 - y) * log(pmax(1 - prob, 1e-300)))
      ebic <- -2 * ll + fit$df * log(N) + 2 * gamma * fit$df * log(p - 1)
      beta[i, -i] <- as.matrix(fit$beta[, which.min(ebic)])
    }
    edge <- (beta != 0) & (t(beta) != 0)
    up <- upper.tri(edge)
    cat(sprintf("%d,%d,%d,%d,%d\n", seed, N, sum(edge[up] & adj[up]), sum(edge[up] & !adj[up]), sum(edge[up])))
  }
}
