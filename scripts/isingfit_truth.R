# The true graph of a psych study data set, shared by isingfit_run.R and
# isingfit_glmnet.R, which source() it from the directory they are in (the
# --file= argument Rscript gives them), whatever the working directory:
# truth_adjacency(DIR, SEED) reads DIR/truth-SEED.json (written by
# `cd study && go run . psych -export DIR`) and returns its n×n logical
# adjacency matrix, TRUE at [i, j] and [j, i] for every coupling (i, j) of
# the file (0-based there, 1-based here). Needs r-cran-jsonlite.
truth_adjacency <- function(dir, seed) {
  truth <- jsonlite::fromJSON(file.path(dir, sprintf("truth-%d.json", seed)))
  p <- truth$n
  adj <- matrix(FALSE, p, p)
  cp <- truth$couplings
  for (r in seq_len(nrow(cp))) {
    adj[cp$i[r] + 1, cp$j[r] + 1] <- TRUE
    adj[cp$j[r] + 1, cp$i[r] + 1] <- TRUE
  }
  adj
}

