# R's IsingFit against `pairwise learn -isingfit` on real binary
# questionnaires (docs/psych/isingfit-match.md). Needs R's IsingFit (from its
# source, `R CMD INSTALL IsingFit/`, with r-cran-qgraph and r-cran-glmnet)
# and, for `export`, r-cran-psychtools. Three steps:
#
#   Rscript scripts/isingfit_match.R export DIR
#     writes DIR/epi.csv and DIR/blot.csv: psychTools' epi (57 yes/no
#     items, answers 1/2, written as answer - 1) and blot (35 items,
#     already 0/1), 0/1 with a header, the rows with a missing answer
#     dropped (IsingFit refuses missing data; so does the comparison).
#
#   Rscript scripts/isingfit_match.R run FILE.csv OUT.csv [REPS]
#     runs IsingFit (defaults: gamma 0.25, AND rule) on FILE, writes its
#     edges to OUT (source,target,weight on IsingFit's 0/1 scale) and
#     prints the median wall time of REPS runs (default 5), with the R and
#     IsingFit versions.
#
#   Rscript scripts/isingfit_match.R compare R.csv OURS.csv
#     reads the edges of `run` and those of `pairwise learn -isingfit
#     -format csv` (columns source,target,weight,coupling; IsingFit's
#     weight is 4 * coupling) and prints the edge counts, the Jaccard index
#     of the two edge sets and the Pearson correlation of the shared
#     edges' weights.
args <- commandArgs(TRUE)
if (length(args) < 1) stop("usage: isingfit_match.R export DIR | run FILE OUT [REPS] | compare R.csv OURS.csv")
mode <- args[1]
if (mode == "export") {
  suppressMessages(library(psychTools))
  dir <- args[2]
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  data(epi, package = "psychTools", envir = environment())
  data(blot, package = "psychTools", envir = environment())
  sets <- list(epi = epi - 1, blot = blot)
  for (name in names(sets)) {
    x <- as.matrix(sets[[name]])
    keep <- complete.cases(x)
    x <- x[keep, , drop = FALSE]
    stopifnot(all(x == 0 | x == 1))
    write.csv(x, file.path(dir, paste0(name, ".csv")), row.names = FALSE, quote = FALSE)
    cat(sprintf("%s: %d rows of %d kept (%d with a missing answer dropped), %d items\n",
      name, nrow(x), length(keep), sum(!keep), ncol(x)))
  }
} else if (mode == "run") {
  suppressMessages(library(IsingFit))
  x <- as.matrix(read.csv(args[2], check.names = FALSE))
  reps <- if (length(args) >= 4) as.integer(args[4]) else 5L
  secs <- numeric(reps)
  for (r in seq_len(reps)) {
    t0 <- Sys.time()
    fit <- suppressWarnings(IsingFit(x, family = "binomial", AND = TRUE, gamma = 0.25,
      plot = FALSE, progressbar = FALSE))
    secs[r] <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
  }
  w <- fit$weiadj
  idx <- which(upper.tri(w) & w != 0, arr.ind = TRUE)
  out <- data.frame(source = colnames(w)[idx[, 1]], target = colnames(w)[idx[, 2]],
    weight = w[idx])
  write.csv(out, args[3], row.names = FALSE, quote = FALSE)
  cat(sprintf("%s: %d edges; IsingFit %s, glmnet %s, %s; median %.3f s of %d runs\n",
    args[2], nrow(out), packageVersion("IsingFit"), packageVersion("glmnet"),
    R.version.string, median(secs), reps))
} else if (mode == "compare") {
  key <- function(d) ifelse(d$source < d$target, paste(d$source, d$target), paste(d$target, d$source))
  a <- read.csv(args[2], stringsAsFactors = FALSE)
  b <- read.csv(args[3], stringsAsFactors = FALSE)
  wa <- setNames(a$weight, key(a))
  wb <- setNames(4 * b$coupling, key(b))
  shared <- intersect(names(wa), names(wb))
  jac <- length(shared) / length(union(names(wa), names(wb)))
  r <- if (length(shared) > 2) cor(wa[shared], wb[shared]) else NA
  cat(sprintf("R %d edges, ours %d, shared %d, only R %d, only ours %d: Jaccard %.4f, weight correlation %.5f, largest |difference| %.3g\n",
    length(wa), length(wb), length(shared), length(setdiff(names(wa), shared)),
    length(setdiff(names(wb), shared)), jac, r, max(abs(wa[shared] - wb[shared]))))
} else {
  stop("usage: isingfit_match.R export DIR | run FILE OUT [REPS] | compare R.csv OURS.csv")
}
