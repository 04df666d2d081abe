// Package bpe counts the tokens of a text with an exact BPE encoding,
// cl100k_base or o200k_base, as OpenAI's tiktoken does: the text is split
// by the encoding's pre-tokenizer (hand-written splitters held to the
// encodings' patterns), and each piece is merged by rank, long pieces with
// a heap and in chunks whose cuts are checked to be boundaries of the
// whole piece's tokens. The merge ranks are the ones
// github.com/pkoukk/tiktoken-go-loader embeds; nothing is downloaded.
package bpe
