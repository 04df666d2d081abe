package model

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"
)

// An Image is a picture a block holds. Its data is not text: [Message.Chars]
// leaves it out, and the token estimates count an image by the provider's
// image rule, not by its characters.
type Image struct {
	// MediaType is the image's type as recorded (image/png), or as its
	// header says when the record does not say.
	MediaType string `json:"media_type,omitempty"`
	// Chars is the characters its data takes in the record (a base64 string
	// or a data: URL); 0 for an image given by URL or file id.
	Chars int `json:"chars"`
	// Width and Height are its size in pixels, read from the header of its
	// data (PNG, JPEG, GIF, WebP); 0 when there is no data or it does not
	// decode.
	Width  int `json:"width,omitempty"`
	Height int `json:"height,omitempty"`
}

// Sized reports whether the image's size in pixels is known.
func (im Image) Sized() bool { return im.Width > 0 && im.Height > 0 }

// ImageChars returns the characters of the images' data.
func ImageChars(ims []Image) int {
	n := 0
	for _, im := range ims {
		n += im.Chars
	}
	return n
}

// imagePart is an image in any of the shapes the formats record: an
// Anthropic image block ({"type":"image","source":{…}}), an OpenAI chat
// part ({"type":"image_url","image_url":{"url":…}}), a Responses-API part
// ({"type":"input_image","image_url":"data:…"}), a Gemini inlineData part.
type imagePart struct {
	Type   string `json:"type"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
	ImageURL   json.RawMessage `json:"image_url"`
	InlineData *struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"inlineData"`
}

// image returns the part's image; ok is false when the part is not one.
func (p *imagePart) image() (im Image, ok bool) {
	switch {
	case p.Source != nil && (p.Type == "image" || p.Type == ""):
		if p.Source.Type != "base64" {
			return Image{MediaType: p.Source.MediaType}, true // a URL or a file id
		}
		return decodedImage(p.Source.MediaType, p.Source.Data, len(p.Source.Data)), true
	case len(p.ImageURL) > 0 && (p.Type == "image_url" || p.Type == "input_image" || p.Type == "image" || p.Type == ""):
		var url string
		if p.ImageURL[0] == '{' {
			var u struct {
				URL string `json:"url"`
			}
			if json.Unmarshal(p.ImageURL, &u) != nil {
				return Image{}, false
			}
			url = u.URL
		} else if json.Unmarshal(p.ImageURL, &url) != nil {
			return Image{}, false
		}
		return dataURLImage(url), true
	case p.InlineData != nil && strings.HasPrefix(p.InlineData.MimeType, "image/"):
		return decodedImage(p.InlineData.MimeType, p.InlineData.Data, len(p.InlineData.Data)), true
	}
	return Image{}, false
}

// dataURLImage reads a data: URL (data:image/png;base64,…); any other URL
// is an image of unknown size with no data in the record.
func dataURLImage(url string) Image {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return Image{}
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return Image{Chars: len(url)}
	}
	mediaType, enc, _ := strings.Cut(meta, ";")
	if enc != "base64" {
		return Image{MediaType: mediaType, Chars: len(url)}
	}
	return decodedImage(mediaType, data, len(url))
}

// decodedImage is the image whose base64 data is data, taking chars
// characters in the record; its size comes from its header.
func decodedImage(mediaType, data string, chars int) Image {
	im := Image{MediaType: mediaType, Chars: chars}
	kind, w, h := imageSize(data)
	if im.MediaType == "" {
		im.MediaType = kind
	}
	im.Width, im.Height = w, h
	return im
}

// maxImageHeader bounds what is decoded to find an image's size: a JPEG's
// frame header follows its metadata, which can be long.
const maxImageHeader = 1 << 20

// imageSize reads the size of the image whose base64 data is data from its
// header; 0, 0 when the data is not a PNG, JPEG, GIF or WebP it can read.
func imageSize(data string) (kind string, w, h int) {
	data = strings.TrimRight(data, "=")
	r := io.LimitReader(base64.NewDecoder(base64.RawStdEncoding, strings.NewReader(data)), maxImageHeader)
	var head [30]byte
	n, _ := io.ReadFull(r, head[:])
	hb := head[:n]
	all := io.MultiReader(bytes.NewReader(hb), r)
	var cfg image.Config
	var err error
	switch {
	case bytes.HasPrefix(hb, []byte("\x89PNG\r\n\x1a\n")):
		kind = "image/png"
		cfg, err = png.DecodeConfig(all)
	case bytes.HasPrefix(hb, []byte("\xff\xd8")):
		kind = "image/jpeg"
		cfg, err = jpeg.DecodeConfig(all)
	case bytes.HasPrefix(hb, []byte("GIF8")):
		kind = "image/gif"
		cfg, err = gif.DecodeConfig(all)
	case n == len(head) && string(hb[:4]) == "RIFF" && string(hb[8:12]) == "WEBP":
		kind = "image/webp"
		cfg.Width, cfg.Height = webpSize(hb)
	default:
		return "", 0, 0
	}
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
		return kind, 0, 0
	}
	return kind, cfg.Width, cfg.Height
}

// webpSize reads a WebP's size from its first chunk's header: VP8X (the
// canvas, 24-bit sizes minus one), VP8L (14-bit sizes minus one) or VP8
// (the key frame's 14-bit sizes).
func webpSize(h []byte) (w, ht int) {
	switch string(h[12:16]) {
	case "VP8X":
		return 1 + (int(h[24]) | int(h[25])<<8 | int(h[26])<<16), 1 + (int(h[27]) | int(h[28])<<8 | int(h[29])<<16)
	case "VP8L":
		if h[20] != 0x2f {
			return 0, 0
		}
		bits := binary.LittleEndian.Uint32(h[21:25])
		return 1 + int(bits&0x3fff), 1 + int(bits>>14&0x3fff)
	case "VP8 ":
		if h[23] != 0x9d || h[24] != 0x01 || h[25] != 0x2a {
			return 0, 0
		}
		return int(binary.LittleEndian.Uint16(h[26:28]) & 0x3fff), int(binary.LittleEndian.Uint16(h[28:30]) & 0x3fff)
	}
	return 0, 0
}

// ImagesIn returns the images raw holds: raw is an image part, or a tool
// result's content (a list of parts, some of them images).
func ImagesIn(raw json.RawMessage) []Image {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '{' {
		var p imagePart
		if json.Unmarshal(raw, &p) != nil {
			return nil
		}
		if im, ok := p.image(); ok {
			return []Image{im}
		}
		return nil
	}
	if raw[0] != '[' || !bytes.Contains(raw, []byte("image")) && !bytes.Contains(raw, []byte("inlineData")) {
		return nil
	}
	var parts []imagePart
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []Image
	for i := range parts {
		if im, ok := parts[i].image(); ok {
			out = append(out, im)
		}
	}
	return out
}

// FindImages sets the Images of the blocks of ts that hold raw JSON.
func FindImages(ts []*Transcript) {
	for _, t := range ts {
		for i := range t.Messages {
			for j := range t.Messages[i].Blocks {
				b := &t.Messages[i].Blocks[j]
				if b.Images == nil && len(b.Raw) > 0 && (b.Type == BlockImage || b.Type == BlockToolResult) {
					b.Images = ImagesIn(b.Raw)
				}
			}
		}
	}
}

// WithoutImages returns the message's blocks without the images: image
// blocks left out, and tool results' content without its image parts.
// The blocks are m's own when no block holds an image.
func (m *Message) WithoutImages() []Block {
	has := false
	for _, b := range m.Blocks {
		if len(b.Images) > 0 {
			has = true
			break
		}
	}
	if !has {
		return m.Blocks
	}
	out := make([]Block, 0, len(m.Blocks))
	for _, b := range m.Blocks {
		if len(b.Images) == 0 {
			out = append(out, b)
			continue
		}
		if b.Type != BlockToolResult {
			continue
		}
		b.Images, b.Raw = nil, partsWithoutImages(b.Raw)
		out = append(out, b)
	}
	return out
}

// partsWithoutImages returns a tool result's content without its image
// parts; nil when only text is left, which the block's Text holds.
func partsWithoutImages(raw json.RawMessage) json.RawMessage {
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return raw
	}
	var kept []json.RawMessage
	onlyText := true
	for _, p := range parts {
		var ip imagePart
		if json.Unmarshal(p, &ip) == nil {
			if _, ok := ip.image(); ok {
				continue
			}
		}
		if ip.Type != "text" {
			onlyText = false
		}
		kept = append(kept, p)
	}
	if onlyText {
		return nil
	}
	out, err := json.Marshal(kept)
	if err != nil {
		return raw
	}
	return out
}
