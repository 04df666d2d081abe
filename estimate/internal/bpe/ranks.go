package bpe

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// loadRanks reads the merge ranks of an encoding from the file
// github.com/pkoukk/tiktoken-go-loader embeds (one "base64-token rank"
// line per token), as its offline loader does, in a third of its time:
// the map is made at its size, and the tokens are decoded into one string
// that every key is a slice of (TestLoadRanksIsTheLoaders). Every command
// that counts exactly waits for it before its first count.
func loadRanks(file string) (map[string]int, error) {
	data, err := assets.Assets.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	tokens := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	type entry struct{ start, end, rank int }
	entries := make([]entry, 0, lines)
	for n := 1; len(data) > 0; n++ {
		line := data
		if k := bytes.IndexByte(data, '\n'); k >= 0 {
			line, data = data[:k], data[k+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		token, rank, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("%s:%d: no rank", file, n)
		}
		start := len(tokens)
		tokens, err = base64.StdEncoding.AppendDecode(tokens, token)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		r, err := strconv.Atoi(string(rank))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		entries = append(entries, entry{start, len(tokens), r})
	}
	all := string(tokens)
	ranks := make(map[string]int, len(entries))
	for _, e := range entries {
		ranks[all[e.start:e.end]] = e.rank
	}
	return ranks, nil
}
