package model

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func encodedImage(t *testing.T, kind string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	var b bytes.Buffer
	var err error
	switch kind {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// webp builds the first 30 bytes of a WebP whose first chunk is fourcc,
// with payload at offset 20.
func webp(fourcc string, payload ...byte) string {
	h := make([]byte, 30)
	copy(h, "RIFF\x00\x00\x00\x00WEBP")
	copy(h[12:], fourcc)
	copy(h[20:], payload)
	return base64.StdEncoding.EncodeToString(h)
}

func TestImageSize(t *testing.T) {
	for _, c := range []struct {
		name, data string
		kind       string
		w, h       int
	}{
		{"png", encodedImage(t, "png", 1280, 800), "image/png", 1280, 800},
		{"jpeg", encodedImage(t, "jpeg", 640, 481), "image/jpeg", 640, 481},
		{"gif", encodedImage(t, "gif", 33, 7), "image/gif", 33, 7},
		// VP8X: 24-bit width−1 and height−1 at 24 and 27.
		{"webp VP8X", webp("VP8X", 0, 0, 0, 0, 0x7f, 0x07, 0, 0x37, 0x04, 0), "image/webp", 1920, 1080},
		// VP8L: signature 0x2f, then 14 bits of width−1, 14 of height−1.
		{"webp VP8L", webp("VP8L", 0x2f, 0x63, 0x00, 0x1f, 0x00), "image/webp", 100, 125},
		// VP8: a key frame's start code 9d 01 2a at 23, then 14-bit sizes.
		{"webp VP8", webp("VP8 ", 0, 0, 0, 0x9d, 0x01, 0x2a, 0x20, 0x03, 0x58, 0x02), "image/webp", 800, 600},
		{"not an image", base64.StdEncoding.EncodeToString([]byte("hello, world")), "", 0, 0},
		{"truncated png", encodedImage(t, "png", 10, 10)[:12], "image/png", 0, 0},
		{"not base64", "!!!!", "", 0, 0},
		{"unpadded", encodedImage(t, "gif", 3, 5)[:len(encodedImage(t, "gif", 3, 5))-1], "image/gif", 3, 5},
	} {
		kind, w, h := imageSize(c.data)
		if kind != c.kind || w != c.w || h != c.h {
			t.Errorf("%s: %q %d×%d, want %q %d×%d", c.name, kind, w, h, c.kind, c.w, c.h)
		}
	}
}

// TestImagesIn reads an image in each format's shape, and the images
// among a tool result's parts.
func TestImagesIn(t *testing.T) {
	png := encodedImage(t, "png", 20, 10)
	url := "data:image/png;base64," + png
	sized := Image{MediaType: "image/png", Chars: len(png), Width: 20, Height: 10}
	inURL := Image{MediaType: "image/png", Chars: len(url), Width: 20, Height: 10}
	for _, c := range []struct {
		name, raw string
		want      []Image
	}{
		{"anthropic", `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}`, []Image{sized}},
		{"anthropic url", `{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}`, []Image{{}}},
		{"openai chat", `{"type":"image_url","image_url":{"url":"` + url + `","detail":"high"}}`, []Image{inURL}},
		{"openai chat url", `{"type":"image_url","image_url":{"url":"https://example.com/a.png"}}`, []Image{{}}},
		{"responses", `{"type":"input_image","image_url":"` + url + `"}`, []Image{inURL}},
		{"gemini", `{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}`, []Image{sized}},
		{"gemini pdf", `{"inlineData":{"mimeType":"application/pdf","data":"JVBERi0="}}`, nil},
		{"tool result", `[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}},{"type":"image","source":{"type":"base64","data":"` + png + `"}}]`,
			[]Image{sized, sized}},
		{"tool result, no image", `[{"type":"text","text":"an image"}]`, nil},
		{"not json", `[{"type":"image"`, nil},
		{"document", `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}`, nil},
	} {
		if diff := cmp.Diff(c.want, ImagesIn(json.RawMessage(c.raw))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestWithoutImages: the image blocks leave, a tool result keeps its
// other parts (nil content when only text is left, which Text holds),
// and Chars counts the same with or without the images.
func TestWithoutImages(t *testing.T) {
	png := encodedImage(t, "png", 20, 10)
	img := `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}`
	m := Message{Role: RoleUser, Blocks: []Block{
		{Type: BlockText, Text: "see"},
		{Type: BlockImage, Raw: json.RawMessage(img)},
		{Type: BlockToolResult, ID: "t1", Text: "a", Raw: json.RawMessage(`[{"type":"text","text":"a"},` + img + `]`)},
		{Type: BlockToolResult, ID: "t2", Text: "b", Raw: json.RawMessage(`[{"type":"text","text":"b"},{"type":"document","x":1},` + img + `]`)},
	}}
	FindImages([]*Transcript{{Messages: []Message{m}}})
	got := Message{Role: RoleUser, Blocks: m.WithoutImages()}
	want := []Block{
		{Type: BlockText, Text: "see"},
		{Type: BlockToolResult, ID: "t1", Text: "a"},
		{Type: BlockToolResult, ID: "t2", Text: "b", Raw: json.RawMessage(`[{"type":"text","text":"b"},{"type":"document","x":1}]`)},
	}
	if diff := cmp.Diff(want, got.Blocks); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Chars leaves out exactly the images' data: the same message with
	// empty data counts the same.
	empty := Message{Role: RoleUser}
	for _, b := range m.Blocks {
		b.Raw, b.Images = json.RawMessage(strings.ReplaceAll(string(b.Raw), png, "")), nil
		empty.Blocks = append(empty.Blocks, b)
	}
	if m.Chars() != empty.Chars() {
		t.Errorf("chars %d with images, %d with their data empty", m.Chars(), empty.Chars())
	}
}
