// Package draw holds the pictures of the command pairwise: a canvas that
// writes SVG as text and PNG with the standard library (its own bitmap
// font), a force-directed layout, the network picture, bootnet's two
// plots and the contact map. It is internal to github.com/mrfkit/pairwise: the library does not
// draw.
package draw

import (
	"bufio"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"path/filepath"
	"strings"
)

// canvas is what the pictures draw on: a few shapes in pixel coordinates
// (x to the right, y down), written as SVG (svgCanvas) or rasterised for
// PNG (rasterCanvas), so that every picture is drawn once for both formats.
type canvas interface {
	// line draws a segment of the given width, with round ends.
	line(x1, y1, x2, y2, width float64, c color.RGBA)
	// circle draws a disc filled with fill and outlined with stroke of the
	// given width (no outline for width 0).
	circle(x, y, r float64, fill, stroke color.RGBA, width float64)
	// rect fills an axis-aligned rectangle.
	rect(x, y, w, h float64, fill color.RGBA)
	// convex fills the convex polygon with the given corners.
	convex(pts [][2]float64, fill color.RGBA)
	// text writes s with its cap height size pixels, centred vertically on
	// y, starting at x (anchor 0), centred on it (1) or ending at it (2).
	text(x, y float64, s string, size float64, anchor int, c color.RGBA)
}

// Text anchors of canvas.text.
const (
	anchorStart = iota
	anchorMiddle
	anchorEnd
)

// Drawing is a picture of a given size drawn by draw.
type Drawing struct {
	width, height int
	draw          func(c canvas)
}

// PictureFormat returns "png" or "svg" from the extension of path.
func PictureFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "png", nil
	case ".svg":
		return "svg", nil
	}
	return "", fmt.Errorf("%s: want a picture file name ending in .png or .svg", path)
}

// WritePicture writes d to w as format ("png" or "svg").
func WritePicture(w io.Writer, d Drawing, format string) error {
	if format == "svg" {
		return writeSVG(w, d)
	}
	return writePNG(w, d)
}

// writePNG rasterises d on a white background and encodes it as PNG.
func writePNG(w io.Writer, d Drawing) error {
	rc := newRasterCanvas(d.width, d.height)
	d.draw(rc)
	return png.Encode(w, rc.img)
}

// writeSVG writes d as an SVG document.
func writeSVG(w io.Writer, d Drawing) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", d.width, d.height, d.width, d.height)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", d.width, d.height)
	d.draw(&svgCanvas{w: bw})
	fmt.Fprintln(bw, "</svg>")
	return bw.Flush()
}

// svgCanvas writes shapes as SVG elements.
type svgCanvas struct{ w *bufio.Writer }

// svgColor is a colour as SVG's fill or stroke with its opacity.
func svgColor(attr string, c color.RGBA) string {
	s := fmt.Sprintf(`%s="#%02x%02x%02x"`, attr, c.R, c.G, c.B)
	if c.A != 255 {
		s += fmt.Sprintf(` %s-opacity="%.3g"`, attr, float64(c.A)/255)
	}
	return s
}

func (s *svgCanvas) line(x1, y1, x2, y2, width float64, c color.RGBA) {
	fmt.Fprintf(s.w, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" %s stroke-width="%.2f" stroke-linecap="round"/>`+"\n", x1, y1, x2, y2, svgColor("stroke", c), width)
}

func (s *svgCanvas) circle(x, y, r float64, fill, stroke color.RGBA, width float64) {
	out := ""
	if width > 0 {
		out = fmt.Sprintf(` %s stroke-width="%.2f"`, svgColor("stroke", stroke), width)
	}
	fmt.Fprintf(s.w, `<circle cx="%.2f" cy="%.2f" r="%.2f" %s%s/>`+"\n", x, y, r, svgColor("fill", fill), out)
}

func (s *svgCanvas) rect(x, y, w, h float64, fill color.RGBA) {
	fmt.Fprintf(s.w, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" %s/>`+"\n", x, y, w, h, svgColor("fill", fill))
}

func (s *svgCanvas) convex(pts [][2]float64, fill color.RGBA) {
	var b strings.Builder
	for i, p := range pts {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.2f,%.2f", p[0], p[1])
	}
	fmt.Fprintf(s.w, `<polygon points="%s" %s/>`+"\n", b.String(), svgColor("fill", fill))
}

func (s *svgCanvas) text(x, y float64, str string, size float64, anchor int, c color.RGBA) {
	an := [...]string{"start", "middle", "end"}[anchor]
	// A monospace face with cap height ≈ 0.7 em is as wide as the PNG's
	// font (6 pixels a character for a cap height of 7).
	fmt.Fprintf(s.w, `<text x="%.2f" y="%.2f" font-family="monospace" font-size="%.1f" text-anchor="%s" %s>%s</text>`+"\n",
		x, y+size/2, size/0.7, an, svgColor("fill", c), svgEscape(str))
}

// svgEscape escapes the characters XML gives a meaning to.
func svgEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// rasterCanvas draws into an RGBA image, with coverage-based antialiasing
// of lines and discs.
type rasterCanvas struct {
	img *image.RGBA
}

func newRasterCanvas(w, h int) *rasterCanvas {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	return &rasterCanvas{img: img}
}

// blend paints pixel (x, y) with c at the given coverage in [0, 1].
func (r *rasterCanvas) blend(x, y int, c color.RGBA, cover float64) {
	if !(image.Point{x, y}.In(r.img.Rect)) || cover <= 0 {
		return
	}
	a := math.Min(cover, 1) * float64(c.A) / 255
	i := r.img.PixOffset(x, y)
	p := r.img.Pix[i : i+4 : i+4]
	p[0] = uint8(math.Round(float64(p[0])*(1-a) + float64(c.R)*a))
	p[1] = uint8(math.Round(float64(p[1])*(1-a) + float64(c.G)*a))
	p[2] = uint8(math.Round(float64(p[2])*(1-a) + float64(c.B)*a))
	p[3] = 255
}

func (r *rasterCanvas) line(x1, y1, x2, y2, width float64, c color.RGBA) {
	h := width/2 + 0.5
	x0, x3 := int(math.Floor(math.Min(x1, x2)-h)), int(math.Ceil(math.Max(x1, x2)+h))
	y0, y3 := int(math.Floor(math.Min(y1, y2)-h)), int(math.Ceil(math.Max(y1, y2)+h))
	dx, dy := x2-x1, y2-y1
	ll := dx*dx + dy*dy
	for y := y0; y <= y3; y++ {
		for x := x0; x <= x3; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			t := 0.0
			if ll > 0 {
				t = math.Max(0, math.Min(1, ((px-x1)*dx+(py-y1)*dy)/ll))
			}
			d := math.Hypot(px-x1-t*dx, py-y1-t*dy)
			r.blend(x, y, c, width/2+0.5-d)
		}
	}
}

func (r *rasterCanvas) circle(cx, cy, rad float64, fill, stroke color.RGBA, width float64) {
	h := rad + width/2 + 1
	for y := int(math.Floor(cy - h)); y <= int(math.Ceil(cy+h)); y++ {
		for x := int(math.Floor(cx - h)); x <= int(math.Ceil(cx+h)); x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			r.blend(x, y, fill, rad+0.5-d)
			if width > 0 {
				r.blend(x, y, stroke, width/2+0.5-math.Abs(d-rad))
			}
		}
	}
}

func (r *rasterCanvas) rect(x, y, w, h float64, fill color.RGBA) {
	for py := int(math.Round(y)); py < int(math.Round(y+h)); py++ {
		for px := int(math.Round(x)); px < int(math.Round(x+w)); px++ {
			r.blend(px, py, fill, 1)
		}
	}
}

// convex paints the pixels whose centres lie inside the polygon (on the
// same side of every edge), so that polygons sharing an edge do not paint
// its pixels twice.
func (r *rasterCanvas) convex(pts [][2]float64, fill color.RGBA) {
	if len(pts) < 3 {
		return
	}
	lo := [2]float64{math.Inf(1), math.Inf(1)}
	hi := [2]float64{math.Inf(-1), math.Inf(-1)}
	var area float64
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		area += p[0]*q[1] - q[0]*p[1]
		for a := 0; a < 2; a++ {
			lo[a], hi[a] = math.Min(lo[a], p[a]), math.Max(hi[a], p[a])
		}
	}
	if area == 0 {
		return
	}
	for y := int(math.Floor(lo[1])); y <= int(math.Ceil(hi[1])); y++ {
		for x := int(math.Floor(lo[0])); x <= int(math.Ceil(hi[0])); x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			in := true
			for i, p := range pts {
				q := pts[(i+1)%len(pts)]
				side := (q[0]-p[0])*(py-p[1]) - (q[1]-p[1])*(px-p[0])
				if side*area < 0 || (side == 0 && (q[1] < p[1] || (q[1] == p[1] && q[0] < p[0]))) {
					in = false
					break
				}
			}
			if in {
				r.blend(x, y, fill, 1)
			}
		}
	}
}

// fontScale is the whole-pixel magnification of the bitmap font that
// comes nearest a cap height of size pixels (at least 1).
func fontScale(size float64) int {
	return max(1, int(math.Round(size/glyphH)))
}

func (r *rasterCanvas) text(x, y float64, s string, size float64, anchor int, c color.RGBA) {
	sc := fontScale(size)
	w := textWidth(s, sc)
	left := int(math.Round(x - float64(w*anchor)/2))
	top := int(math.Round(y - float64(glyphH*sc)/2))
	for n, ch := range []rune(s) {
		g := glyph(ch)
		gx := left + n*glyphAdvance*sc
		for row, bits := range g {
			for col := 0; col < glyphW; col++ {
				if bits&(1<<(glyphW-1-col)) == 0 {
					continue
				}
				for dy := 0; dy < sc; dy++ {
					for dx := 0; dx < sc; dx++ {
						r.blend(gx+col*sc+dx, top+row*sc+dy, c, 1)
					}
				}
			}
		}
	}
}

// Colours of the pictures.
var (
	black     = color.RGBA{0, 0, 0, 255}
	white     = color.RGBA{255, 255, 255, 255}
	grey      = color.RGBA{120, 120, 120, 255}
	lightGrey = color.RGBA{215, 215, 215, 255}
)

// withAlpha returns c with opacity a in [0, 1].
func withAlpha(c color.RGBA, a float64) color.RGBA {
	c.A = uint8(math.Round(255 * math.Max(0, math.Min(1, a))))
	return c
}
