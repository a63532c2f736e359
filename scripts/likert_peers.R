# likert_peers.R: the peers of the Likert study (docs/psych/likert.md) on the
# data sets of "go run . likert gen".
#
# Usage: Rscript scripts/likert_peers.R DATADIR [--methods EBICglasso,mgm,mgmMixed,IsingFit]
#                                               [--N 250,500] [--seeds S] [--truths latent-spi,...]
#
# For every truth folder DATADIR/FAMILY-Q (truth.json and N<N>-s<SEED>.csv,
# answers 0..k-1 with a header) it runs
#   EBICglasso  qgraph's EBICglasso (gamma 0.5, no threshold) on cor_auto's
#               correlations (polychoric for the ordinal items): bootnet's
#               "EBICglasso" default
#   mgm         mgm with every item categorical (type "c", level = the
#               answers seen in that data set), lambdaSel "EBIC" with its
#               default gamma 0.25, the AND rule, pairwise interactions
#   mgmMixed    mgm with the truth's unordered items (truth.json's
#               "nominal", the mixed truths') categorical and the others
#               Gaussian, otherwise as mgm
#   IsingFit    IsingFit (gamma 0.25, AND rule) on the items split at their
#               median: 1 for answers >= c, c the cut nearest a 50/50 split,
#               the smallest on ties (the split of "likert learn")
# and prints one CSV line a (truth, N, seed, method), the format of
# "likert learn":
#   family,questionnaire,N,seed,method,p,truth_edges,edges,tp,fp,fn,f1,precision,recall,seconds
# seconds is the elapsed time of the estimation alone (correlations and
# network for EBICglasso), not of reading the file. A run that stops with
# an error prints no line; the error goes to standard error.
suppressPackageStartupMessages({
  library(jsonlite)
  library(qgraph)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 1) stop("usage: Rscript likert_peers.R DATADIR [--methods M,...] [--N N,...] [--seeds S] [--truths T,...]")
datadir <- args[1]
opt <- function(name, default) {
  i <- match(name, args)
  if (is.na(i)) default else args[i + 1]
}
methods <- strsplit(opt("--methods", "EBICglasso,mgm,IsingFit"), ",")[[1]]
# mgm and IsingFit are not Debian packages: load them only when asked for.
if (any(c("mgm", "mgmMixed") %in% methods)) suppressPackageStartupMessages(library(mgm))
if ("IsingFit" %in% methods) suppressPackageStartupMessages(library(IsingFit))
keepN <- as.integer(strsplit(opt("--N", ""), ",")[[1]])
maxSeed <- as.integer(opt("--seeds", "0"))
truths <- strsplit(opt("--truths", ""), ",")[[1]]

# median_cut is the cut c in 1..k-1 whose split (answers >= c against the
# rest) is nearest 50/50, the smallest c on ties.
median_cut <- function(x) {
  cuts <- seq_len(max(x))
  if (length(cuts) == 0) return(1)
  gap <- sapply(cuts, function(c) abs(sum(x >= c) - length(x) / 2))
  cuts[which.min(gap)]
}

score <- function(p, truth, adj) {
  learned <- which(adj != 0 & upper.tri(adj), arr.ind = TRUE)
  key <- function(m) if (nrow(m) == 0) character(0) else paste(pmin(m[, 1], m[, 2]), pmax(m[, 1], m[, 2]))
  t <- key(truth)
  l <- key(learned)
  tp <- sum(l %in% t)
  fp <- length(l) - tp
  fn <- length(t) - tp
  list(truth_edges = length(t), edges = length(l), tp = tp, fp = fp, fn = fn,
       f1 = if (2 * tp + fp + fn > 0) 2 * tp / (2 * tp + fp + fn) else 1,
       precision = if (length(l) > 0) tp / length(l) else NA,
       recall = if (length(t) > 0) tp / length(t) else NA)
}

estimate <- function(method, d, nominal) {
  p <- ncol(d)
  switch(method,
    EBICglasso = {
      S <- cor_auto(d, detectOrdinal = TRUE, forcePD = TRUE, verbose = FALSE)
      suppressWarnings(EBICglasso(S, n = nrow(d), gamma = 0.5))
    },
    mgm = {
      lev <- apply(d, 2, function(x) length(unique(x)))
      # mgm wants categories as consecutive values; the answers seen, ranked
      m <- apply(d, 2, function(x) match(x, sort(unique(x))))
      fit <- mgm(data = m, type = rep("c", p), level = lev, lambdaSel = "EBIC",
                 lambdaGam = 0.25, ruleReg = "AND", k = 2, pbar = FALSE, signInfo = FALSE)
      fit$pairwise$wadj
    },
    mgmMixed = {
      # The mixed truths' unordered items categorical, the others Gaussian:
      # mgm's own mixed model.
      isnom <- seq_len(p) %in% (nominal + 1)
      lev <- ifelse(isnom, apply(d, 2, function(x) length(unique(x))), 1)
      m <- as.matrix(d)
      for (j in which(isnom)) m[, j] <- match(m[, j], sort(unique(m[, j])))
      fit <- mgm(data = m, type = ifelse(isnom, "c", "g"), level = lev, lambdaSel = "EBIC",
                 lambdaGam = 0.25, ruleReg = "AND", k = 2, pbar = FALSE, signInfo = FALSE)
      fit$pairwise$wadj
    },
    IsingFit = {
      b <- sapply(d, function(x) as.integer(x >= median_cut(x)))
      fit <- IsingFit(b, family = "binomial", AND = TRUE, gamma = 0.25, plot = FALSE, progressbar = FALSE)
      fit$weiadj
    },
    stop("unknown method ", method))
}

cat("family,questionnaire,N,seed,method,p,truth_edges,edges,tp,fp,fn,f1,precision,recall,seconds\n")
for (tf in sort(Sys.glob(file.path(datadir, "*", "truth.json")))) {
  dir <- dirname(tf)
  if (length(truths) > 0 && !(basename(dir) %in% truths)) next
  truth <- fromJSON(tf)
  te <- cbind(truth$edges$i, truth$edges$j) + 1
  files <- list.files(dir, pattern = "^N[0-9]+-s[0-9]+\\.csv$")
  N <- as.integer(sub("^N([0-9]+)-s.*", "\\1", files))
  seed <- as.integer(sub(".*-s([0-9]+)\\.csv$", "\\1", files))
  o <- order(N, seed)
  for (r in o) {
    if (length(keepN) > 0 && !is.na(keepN[1]) && !(N[r] %in% keepN)) next
    if (maxSeed > 0 && seed[r] > maxSeed) next
    d <- read.csv(file.path(dir, files[r]))
    for (m in methods) {
      adj <- NULL
      t <- system.time(adj <- tryCatch(estimate(m, d, if (is.null(truth$nominal)) integer(0) else truth$nominal), error = function(e) {
        message(sprintf("%s %s: %s", files[r], m, conditionMessage(e)))
        NULL
      }))["elapsed"]
      if (is.null(adj)) next
      s <- score(ncol(d), te, as.matrix(adj))
      cat(sprintf("%s,%s,%d,%d,%s,%d,%d,%d,%d,%d,%d,%.4f,%s,%.4f,%.4f\n",
                  truth$family, truth$questionnaire, N[r], seed[r], m, ncol(d),
                  s$truth_edges, s$edges, s$tp, s$fp, s$fn, s$f1,
                  if (is.na(s$precision)) "NA" else sprintf("%.4f", s$precision),
                  s$recall, t))
    }
  }
  message(dir, " done")
}
