//go:build goexperiment.jsonv2

package main

import jsonv2 "encoding/json/v2"

var extra = []decoder{{"encoding/json/v2 Unmarshal", func(b []byte, v any) error { return jsonv2.Unmarshal(b, v) }}}
