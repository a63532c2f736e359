# likert_spec.R: the questionnaire specs of the Likert study (docs/psych/likert.md).
#
# Usage: Rscript scripts/likert_spec.R OUTDIR
#
# For each of four questionnaires other than bfi (spi, msq, sai from
# psychTools; big5 from qgraph) it takes 20 to 25 items, keeps the rows that
# answer every one of them with a whole number, recodes the answers to
# 0..k-1, and writes OUTDIR/spec-NAME.json with the item names, k, the
# number of rows, each item's answer proportions, and the partial
# correlations of a sparse Gaussian graphical model fitted to the items'
# polychoric correlations (lavaan's lavCor with every item ordered):
#   graph    EBICglasso (gamma 0.5) on them, with the pairs whose partial
#            correlation is below 0.05 in absolute value dropped: on these
#            data EBICglasso keeps 40-80% of the pairs, half of them below
#            0.03, which no method can recover at N <= 2500 (the standard
#            error of a partial correlation is about 1/sqrt(N) = 0.02 at
#            N = 2500, so 0.05 is the smallest that N = 2500 can just see);
#   weights  the partial correlations of the Gaussian model on that graph
#            refitted without penalty (glasso with rho = 0 and the other
#            pairs held at zero), so they are the data's, not shrunk; a
#            pair that the refit puts below 0.05 is dropped and the rest
#            refitted again, until every edge is at least 0.05.
# "likert gen" of the study builds the truths from these files.
suppressPackageStartupMessages({
  library(psychTools)
  library(qgraph)
  library(lavaan)
  library(jsonlite)
  library(glasso)
})

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("usage: Rscript likert_spec.R OUTDIR")
out <- args[1]
dir.create(out, showWarnings = FALSE, recursive = TRUE)

data(spi, package = "psychTools")
data(msq, package = "psychTools")
data(sai, package = "psychTools")
data(big5, package = "qgraph")

# The first five items of each Big Five scale of the SPI (its keys, signs
# dropped: the sign of an edge does not matter for its recovery).
spi_items <- unlist(lapply(spi.keys[c("Agree", "Consc", "Neuro", "Extra", "Open")],
                           function(k) sub("^-", "", k[1:5])))
# Mood adjectives of the MSQ: energetic arousal, tiredness, tension and
# fear, positive and negative affect (five rare-answer items among them).
msq_items <- c("active", "energetic", "vigorous", "lively", "full.of.pep",
               "sleepy", "tired", "drowsy", "tense", "jittery", "fearful",
               "nervous", "scared", "afraid", "upset", "distressed", "happy",
               "pleased", "satisfied", "content", "sad", "blue", "unhappy",
               "lonely", "gloomy")
# The 20 items of the state anxiety inventory, first occasion only.
sai_items <- names(sai)[4:23]
# qgraph's big5: the first five items of each factor (N1, N6, ..., C25).
b5 <- as.data.frame(big5)
big5_items <- colnames(b5)[1:25]

specs <- list(
  list(name = "spi", data = spi[, spi_items], low = 1, k = 6),
  list(name = "msq", data = msq[, msq_items], low = 0, k = 4),
  list(name = "sai", data = sai[sai$time == 1, sai_items], low = 1, k = 4),
  list(name = "big5", data = b5[, big5_items], low = 1, k = 5)
)

for (s in specs) {
  d <- as.data.frame(s$data)
  whole <- apply(as.matrix(d), 1, function(r) all(!is.na(r) & r == round(r)))
  d <- d[whole, , drop = FALSE] - s$low
  stopifnot(all(as.matrix(d) >= 0), all(as.matrix(d) < s$k))
  props <- t(sapply(d, function(x) tabulate(x + 1, nbins = s$k) / length(x)))
  poly <- lavCor(d, ordered = names(d))
  ebic <- suppressWarnings(EBICglasso(poly, n = nrow(d), gamma = 0.5))
  ebic <- unclass(as.matrix(ebic))
  keep <- abs(ebic) >= 0.05
  diag(keep) <- TRUE
  repeat {
    zero <- which(!keep & upper.tri(keep), arr.ind = TRUE)
    # rho = 0 warns of possible trouble with a singular matrix; a polychoric
    # matrix of thousands of rows is of full rank.
    fit <- suppressWarnings(glasso(unname(as.matrix(poly)), rho = 0, zero = if (nrow(zero) > 0) zero else NULL,
                                   penalize.diagonal = FALSE, thr = 1e-8, maxit = 1e4))
    pcor <- -cov2cor(fit$wi)
    pcor <- (pcor + t(pcor)) / 2
    diag(pcor) <- 0
    pcor[!keep] <- 0
    weak <- keep & abs(pcor) < 0.05
    diag(weak) <- FALSE
    if (!any(weak)) break
    keep[weak] <- FALSE
  }
  u <- abs(pcor[upper.tri(pcor)])
  cat(sprintf("%s: %d items, k = %d, %d rows; EBICglasso %d of %d pairs, %d edges after dropping those below 0.05 and refitting; their |pcor| median %.3f, range %.3f to %.3f; least answer proportion %.4f\n",
              s$name, ncol(d), s$k, nrow(d), sum(ebic[upper.tri(ebic)] != 0), length(u), sum(u > 0),
              median(u[u > 0]), min(u[u > 0]), max(u), min(props)))
  spec <- list(name = s$name, items = names(d), k = s$k, rows = nrow(d),
               props = unname(props), pcor = pcor)
  writeLines(toJSON(spec, digits = I(10), auto_unbox = TRUE, matrix = "rowmajor"),
             file.path(out, paste0("spec-", s$name, ".json")))
}
