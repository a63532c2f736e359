// Package protein predicts residue contacts and the effects of mutations
// from a multiple sequence alignment of a protein (or RNA) family: the
// workflow of direct coupling analysis, built on the learners of package
// pairwise. An alignment of N sequences and L columns is N samples of a
// Potts model on L variables with k states (the 20 amino acids and the
// gap, k = 21); the couplings W_ij the learners estimate tell which
// columns touch in the folded structure.
//
// # The workflow
//
// Read the alignment. ReadAlignment (or ReadAlignmentFile) reads aligned
// FASTA, A2M/A3M (ColabFold's too), Stockholm or PSICOV's .aln, compressed
// with gzip or not, the format detected from the content, into
// an Alignment over an alphabet whose state 0 is the gap: ProteinAlphabet
// by default, RNAAlphabet, DNAAlphabet, or a caller's own (AlignAlphabet).
// AlignFocus keeps the columns where a focus sequence has a residue and
// numbers them by its residues, as plmc's -f does; AlignMaxSequenceGaps
// and AlignMaxColumnGaps drop gappy sequences and columns; a letter
// outside the alphabet (X, B, Z, ...) is read as a gap, or drops its
// sequence as plmc does (AlignUnknownLetters). The Alignment's Report says
// what was read, dropped and mapped.
//
// Reweight the sequences. A family is sampled unevenly (many close
// relatives of a few well-studied proteins), so Reweight gives sequence s
// the weight 1/|{t : id(s, t) ≥ θ}|, its neighbours at identity
// θ = DefaultIdentity = 0.8 counted with itself, plmc's weights exactly,
// and their sum Neff, the effective number of sequences.
// Alignment.Samples turns the alignment and the weights into weighted
// pairwise.Samples at one byte a state.
//
// Learn and score. pairwise.LearnContacts goes from the weighted samples
// straight to the coupling scores, without building a model:
// pairwise.ContactMap's Scores carry the average product correction (APC)
// and Raw the scores before it. Or learn a Potts model
// (pairwise.LearnPairwise, with a ridge and the edge test off) and score
// it with ContactScores: the Frobenius norm of each coupling block W_ij in
// the zero-sum gauge, the gap left out with ContactIgnoreGap(true), then
// the APC, S_ij − S_i· S_j· / S_·· (ContactAPC, on by default).
//
// Smooth, if asked. SmoothScores adds to each pair's score the mean score
// of its neighbouring pairs (i ± 1, j ± 1), a spatial prior beyond direct
// coupling analysis (contacts come in patches); AutoSmoothAlpha(Neff, L)
// applies it when the alignment is shallow, fewer than SmoothDepth
// effective sequences a column (pairwise contacts -smooth auto). It is not
// the default: docs/contacts measures it on three fresh sets of families,
// where it helped on one and failed on two.
//
// Rank and check. RankContacts sorts the pairs by score at a minimum
// sequence separation |i − j| (6 is usual for proteins), and
// ContactPrecision counts the true contacts among the top pairs (L, L/2 or
// L/5 of them) given the contacts of a solved structure, such as the pairs
// whose Cβ atoms are within 8 Å.
//
// Write. WritePlmcCouplings writes the scores in the layout of plmc's
// couplings file, which the tools downstream of plmc and EVcouplings read;
// the command "pairwise contacts" writes it with -layout plmc.
//
// Score mutations. With a model, MutationEffects gives the log-odds of
// every single substitution of a sequence against the sequence itself,
// the normalising constant cancelling.
//
// The package example runs every step on a made-up family; docs/contacts
// in the repository measures the workflow against plmc on real families
// with solved structures.
//
// # Errors
//
// Anything a caller can get wrong is a returned error whose message starts
// with "protein: " and names the function. A problem in an alignment is an
// *AlignmentError naming the file, the line and the sequence. Accessors of
// an Alignment panic, as a slice does, for an index out of range.
package protein
