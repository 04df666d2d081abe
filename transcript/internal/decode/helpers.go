package decode

import (
	"bytes"
	"encoding/json"
)

// Utf8BOM is the byte order mark a UTF-8 input may start with.
var Utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// DetectProbe is how many records detection looks at.
const DetectProbe = 64

func HasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// MarshalNoEscape is v as compact JSON, without escaping <, > and & (the
// recorded text is written as it was).
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
