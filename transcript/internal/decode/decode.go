package decode

import (
	"encoding/json"
	"reflect"
	"sync/atomic"

	gojson "github.com/goccy/go-json"
)

// StdDecode makes unmarshal use encoding/json alone: the tests turn it on
// to read every input both ways and compare.
var StdDecode atomic.Bool

// Unmarshal decodes raw into v (a pointer) as encoding/json does, about
// eight times faster on Claude Code sessions: goccy/go-json decodes it,
// and on any error v is zeroed and encoding/json decodes it again, so a
// failure's error (its type, its offset, its text) is encoding/json's,
// and so is the result of any input go-json would refuse and
// encoding/json accept. go-json accepts no input encoding/json refuses,
// and decodes what both accept the same: TestFastDecodeReadsTheSame
// holds it on every corpus file and bad input, FuzzUnmarshalAgrees on
// mutations of them.
func Unmarshal(raw []byte, v any) error {
	if StdDecode.Load() {
		return json.Unmarshal(raw, v)
	}
	if gojson.Unmarshal(raw, v) == nil {
		return nil
	}
	if p := reflect.ValueOf(v); p.Kind() == reflect.Pointer && !p.IsNil() {
		p.Elem().SetZero()
	}
	return json.Unmarshal(raw, v)
}
