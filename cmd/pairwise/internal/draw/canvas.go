// Package draw holds the pictures of the command pairwise: the network
// picture, bootnet's two plots of the bootstrap, the contact map, and the
// force-directed layout of the network. It takes plain data (names, edges
// as (i, j, weight), positions, intervals as numbers), not the library's
// types; the command converts. The pictures are drawn once on gonum/plot's
// vg canvas and written as PNG (vgimg), SVG (vgsvg, fonts embedded) or PDF
// (vgpdf) by the file's extension, in the Liberation Sans font that
// gonum/plot ships. It is internal to the command: the library does not
// draw.
package draw

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Drawing is a picture of a given size, drawn by draw. Sizes and
// coordinates are in points, x to the right and y down from the top left
// corner; a PNG is rendered at 72 dots per inch, one pixel a point.
type Drawing struct {
	width, height float64
	draw          func(c *canvas)
}

// Size returns the width and height of d in points (pixels in a PNG).
func (d Drawing) Size() (width, height float64) { return d.width, d.height }

// PictureFormat returns "png", "svg" or "pdf" from the extension of path
// (in any case), and an error for another extension.
func PictureFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg", ".pdf":
		return ext[1:], nil
	}
	return "", fmt.Errorf("%s: want a picture file name ending in .png, .svg or .pdf", path)
}

// WritePicture writes d to w as format: "png", "svg" (with the fonts
// embedded, so that the file shows the same everywhere) or "pdf".
func WritePicture(w io.Writer, d Drawing, format string) error {
	width, height := vg.Length(d.width), vg.Length(d.height)
	var (
		c  vg.Canvas
		wt io.WriterTo
	)
	switch format {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(72), vgimg.UseBackgroundColor(color.White))
		c, wt = img, vgimg.PngCanvas{Canvas: img}
	case "svg":
		svg := vgsvg.NewWith(vgsvg.UseWH(width, height), vgsvg.EmbedFonts(true))
		c, wt = svg, svg
	case "pdf":
		pdf := vgpdf.New(width, height)
		c, wt = pdf, pdf
	default:
		return fmt.Errorf("picture format %q: want png, svg or pdf", format)
	}
	cv := &canvas{c: c, height: d.height, straightAlpha: format == "pdf"}
	cv.rect(0, 0, d.width, d.height, color.White)
	d.draw(cv)
	if format != "svg" {
		_, err := wt.WriteTo(w)
		return err
	}
	// Name fonts of the same widths after the embedded one, for the
	// programs that read no embedded font (Arial has Liberation Sans's
	// metrics), and a generic family last.
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")))
	return err
}

// fonts holds gonum/plot's Liberation fonts; sans is the face of every
// text.
var (
	fonts = font.NewCache(liberation.Collection())
	sans  = font.Font{Typeface: "Liberation", Variant: "Sans"}
)

// face returns the text face at size points.
func face(size float64) font.Face { return fonts.Lookup(sans, font.Length(size)) }

// textWidth returns the width in points of s at size points.
func textWidth(s string, size float64) float64 { f := face(size); return float64(f.Width(s)) }

// capHeight returns the height of a capital letter at size points.
func capHeight(size float64) float64 { return capRatio * size }

// capRatio is the cap height of the text face over its size, from the
// font's metrics (0.7, about Liberation Sans's, if they cannot be read).
var capRatio = func() float64 {
	const ppem = 1000
	fc := face(10)
	m, err := fc.Face.Metrics(new(sfnt.Buffer), fixed.I(ppem), 0)
	if err != nil || m.CapHeight <= 0 {
		return 0.7
	}
	return float64(m.CapHeight) / 64 / ppem
}()

// Text anchors of canvas.text.
const (
	anchorStart = iota
	anchorMiddle
	anchorEnd
)

// canvas draws the few shapes of the pictures on a vg.Canvas, in points
// from the top left corner (vg counts y up from the bottom).
type canvas struct {
	c      vg.Canvas
	height float64
	// straightAlpha is set for vgpdf, which takes the alpha-premultiplied
	// components of a colour as its straight components: a colour with
	// opacity is handed to it as straightColor.
	straightAlpha bool
}

// setColor sets the colour of the shapes and texts drawn next.
func (c *canvas) setColor(col color.Color) {
	if c.straightAlpha {
		if n := color.NRGBAModel.Convert(col).(color.NRGBA); n.A != 255 {
			col = straightColor(n)
		}
	}
	c.c.SetColor(col)
}

// straightColor is a colour whose RGBA method returns its components not
// multiplied by its alpha, for vgpdf (see canvas.straightAlpha); it is no
// valid color.Color elsewhere.
type straightColor color.NRGBA

// RGBA returns the components of c, not multiplied by its alpha.
func (c straightColor) RGBA() (r, g, b, a uint32) {
	return uint32(c.R) * 0x101, uint32(c.G) * 0x101, uint32(c.B) * 0x101, uint32(c.A) * 0x101
}

// pt returns the vg point of (x, y).
func (c *canvas) pt(x, y float64) vg.Point {
	return vg.Point{X: vg.Length(x), Y: vg.Length(c.height - y)}
}

// line draws a segment of the given width.
func (c *canvas) line(x1, y1, x2, y2, width float64, col color.Color) {
	c.dashed(x1, y1, x2, y2, width, col, nil)
}

// dashed draws a segment of the given width with the dash pattern (dash
// and gap lengths; nil for a solid line).
func (c *canvas) dashed(x1, y1, x2, y2, width float64, col color.Color, dashes []float64) {
	c.c.Push()
	defer c.c.Pop()
	c.c.SetLineWidth(vg.Length(width))
	c.setColor(col)
	pattern := make([]vg.Length, len(dashes))
	for i, d := range dashes {
		pattern[i] = vg.Length(d)
	}
	c.c.SetLineDash(pattern, 0)
	var p vg.Path
	p.Move(c.pt(x1, y1))
	p.Line(c.pt(x2, y2))
	c.c.Stroke(p)
}

// circle draws a disc filled with fill and outlined with stroke of the
// given width (no outline for width 0).
func (c *canvas) circle(x, y, r float64, fill, stroke color.Color, width float64) {
	c.c.Push()
	defer c.c.Pop()
	var p vg.Path
	p.Move(c.pt(x+r, y))
	p.Arc(c.pt(x, y), vg.Length(r), 0, 2*math.Pi)
	p.Close()
	c.setColor(fill)
	c.c.Fill(p)
	if width > 0 {
		c.c.SetLineWidth(vg.Length(width))
		c.setColor(stroke)
		c.c.Stroke(p)
	}
}

// rect fills an axis-aligned rectangle with its top left corner at (x, y).
func (c *canvas) rect(x, y, w, h float64, fill color.Color) {
	c.polygon([][2]float64{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}, fill)
}

// polygon fills the polygon with the given corners.
func (c *canvas) polygon(pts [][2]float64, fill color.Color) {
	if len(pts) == 0 {
		return
	}
	c.c.Push()
	defer c.c.Pop()
	var p vg.Path
	p.Move(c.pt(pts[0][0], pts[0][1]))
	for _, q := range pts[1:] {
		p.Line(c.pt(q[0], q[1]))
	}
	p.Close()
	c.setColor(fill)
	c.c.Fill(p)
}

// text writes s at size points, its capital letters centred vertically on
// y, starting at x (anchorStart), centred on it (anchorMiddle) or ending at
// it (anchorEnd).
func (c *canvas) text(x, y float64, s string, size float64, anchor int, col color.Color) {
	fc := face(size)
	switch anchor {
	case anchorMiddle:
		x -= textWidth(s, size) / 2
	case anchorEnd:
		x -= textWidth(s, size)
	}
	c.c.Push()
	defer c.c.Pop()
	c.setColor(col)
	c.c.FillString(fc, c.pt(x, y+capHeight(size)/2), s)
}

// image draws img with its top left corner at (x, y), one pixel a point.
func (c *canvas) image(x, y float64, img image.Image) {
	b := img.Bounds()
	c.c.DrawImage(vg.Rectangle{Min: c.pt(x, y+float64(b.Dy())), Max: c.pt(x+float64(b.Dx()), y)}, img)
}

// Colours shared by the pictures.
var (
	black     = color.RGBA{0, 0, 0, 255}
	white     = color.RGBA{255, 255, 255, 255}
	grey      = color.RGBA{120, 120, 120, 255}
	lightGrey = color.RGBA{215, 215, 215, 255}
)

// withAlpha returns c at opacity a in [0, 1].
func withAlpha(c color.RGBA, a float64) color.NRGBA {
	return color.NRGBA{c.R, c.G, c.B, uint8(math.Round(255 * math.Max(0, math.Min(1, a))))}
}
