import MapData

/// Text laid out as MapLibre GL's `shaping.ts` lays it out, in its 24-px "em" units (glyph PBF
/// pixels; multiply by `text-size / 24` for CSS pixels), y down, (0, 0) at the anchor.
struct ShapedText {
    struct Glyph {
        var glyph: SDFGlyph
        /// The glyph's pen position (left edge of its advance) and line offset, em units.
        var x: Double
        var y: Double
        /// The section's font scale (`format`'s `font-scale`).
        var scale: Double
        /// The index of its `format` section (whose `text-color`, if set, it takes).
        var section: Int
    }
    var glyphs: [Glyph] = []
    var left = 0.0, right = 0.0, top = 0.0, bottom = 0.0
}

/// One character of a label with the section it came from.
struct TextCharacter {
    var scalar: Unicode.Scalar
    var section: Int
    var scale: Double
    var fontStack: String
}

enum SymbolShaping {
    /// MapLibre's `ONE_EM` and `SHAPING_DEFAULT_OFFSET`: the first baseline sits 17 px under the top of a 24 px line.
    static let oneEm = 24.0
    static let defaultOffset = -17.0

    static let whitespace: Set<UInt32> = [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20]
    static let breakable: Set<UInt32> = [0x0A, 0x20, 0x26, 0x29, 0x2B, 0x2D, 0x2F, 0xAD, 0xB7, 0x200B, 0x2010, 0x2013, 0x2027]

    /// Ideographs and kana, where a line may break between any two characters (MapLibre's
    /// `charAllowsIdeographicBreaking`).
    static func allowsIdeographicBreaking(_ c: UInt32) -> Bool {
        (0x2E80...0x2FDF).contains(c) || (0x2FF0...0x303F).contains(c) || (0x3040...0x30FF).contains(c) ||
            (0x3100...0x312F).contains(c) || (0x31A0...0x31FF).contains(c) || (0x3200...0x4DBF).contains(c) ||
            (0x4E00...0x9FFF).contains(c) || (0xA000...0xA4CF).contains(c) || (0xF900...0xFAFF).contains(c) ||
            (0xFE30...0xFE4F).contains(c) || (0xFF00...0xFFEF).contains(c)
    }

    /// Lays out `text`. `glyph` finds a character's glyph in its font stack (nil: left out);
    /// `maxWidth`, `lineHeight`, `spacing` and `offset` are in em units (the style's ems × 24);
    /// `maxWidth` 0 means one line (line placement). `anchor` and `justify` are the style's
    /// keywords (`justify` already resolved from `auto`).
    static func shape(_ text: [TextCharacter], glyph: (TextCharacter) -> SDFGlyph?, maxWidth: Double, lineHeight: Double,
                      spacing: Double, anchor: String, justify: String, offset: (Double, Double)) -> ShapedText {
        // A character without a glyph (a newline, which glyph PBFs do not hold) advances by
        // nothing, letter spacing included (MapLibre's `getGlyphAdvance`).
        let advance: (TextCharacter) -> Double = { c in glyph(c).map { Double($0.advance) * c.scale + spacing } ?? 0 }
        let lines = maxWidth > 0 ? breakLines(text, advance: advance, maxWidth: maxWidth) : [text]
        var shaped = ShapedText()
        let justification = justify == "right" ? 1.0 : justify == "left" ? 0 : 0.5
        var y = defaultOffset, maxLineLength = 0.0, maxLineHeight = 0.0
        for line in lines {
            let trimmed = trim(line)
            guard !trimmed.isEmpty else { y += lineHeight; continue }
            let lineMaxScale = trimmed.map(\.scale).max() ?? 1
            var x = 0.0
            let first = shaped.glyphs.count
            for c in trimmed {
                guard let g = glyph(c) else { continue }
                // A larger section's baseline sits lower by its extra height (MapLibre's baselineOffset).
                let baseline = (lineMaxScale - c.scale) * oneEm
                shaped.glyphs.append(.init(glyph: g, x: x, y: y + baseline, scale: c.scale, section: c.section))
                x += Double(g.advance) * c.scale + spacing
            }
            if shaped.glyphs.count > first {
                maxLineLength = max(maxLineLength, x - spacing)
                let last = shaped.glyphs[shaped.glyphs.count - 1]
                let indent = (last.x + Double(last.glyph.advance) * last.scale) * justification
                for i in first..<shaped.glyphs.count { shaped.glyphs[i].x -= indent }
            }
            let currentLineHeight = lineHeight * lineMaxScale
            y += currentLineHeight
            maxLineHeight = max(maxLineHeight, currentLineHeight)
        }
        let height = y - defaultOffset
        let (horizontal, vertical) = alignment(anchor)
        let shiftX = (justification - horizontal) * maxLineLength
        let shiftY = maxLineHeight != lineHeight ? -height * vertical - defaultOffset : (-vertical * Double(lines.count) + 0.5) * lineHeight
        for i in shaped.glyphs.indices {
            shaped.glyphs[i].x += shiftX + offset.0
            shaped.glyphs[i].y += shiftY + offset.1
        }
        shaped.top = -vertical * height + offset.1
        shaped.bottom = shaped.top + height
        shaped.left = -horizontal * maxLineLength + offset.0
        shaped.right = shaped.left + maxLineLength
        return shaped
    }

    /// `text-anchor` as shares of the block's width and height left of and above the anchor.
    static func alignment(_ anchor: String) -> (Double, Double) {
        let h: Double = anchor.hasSuffix("right") ? 1 : anchor.hasSuffix("left") ? 0 : 0.5
        let v: Double = anchor.hasPrefix("bottom") ? 1 : anchor.hasPrefix("top") ? 0 : 0.5
        return (h, v)
    }

    /// `text-justify: auto`'s choice for an anchor.
    static func autoJustify(_ anchor: String) -> String {
        anchor.hasSuffix("right") ? "right" : anchor.hasSuffix("left") ? "left" : "center"
    }

    private static func trim(_ line: [TextCharacter]) -> ArraySlice<TextCharacter> {
        var s = line[...]
        while let f = s.first, whitespace.contains(f.scalar.value) { s = s.dropFirst() }
        while let l = s.last, whitespace.contains(l.scalar.value) { s = s.dropLast() }
        return s
    }

    /// MapLibre's `determineLineBreaks`: breaks at spaces, some punctuation and between
    /// ideographs, chosen to make lines about equally long (least squared raggedness, a
    /// forced break at every newline).
    static func breakLines(_ text: [TextCharacter], advance: (TextCharacter) -> Double, maxWidth: Double) -> [[TextCharacter]] {
        guard !text.isEmpty else { return [] }
        final class Break {
            let index: Int, x: Double, badness: Double, prior: Break?
            init(index: Int, x: Double, badness: Double, prior: Break?) { (self.index, self.x, self.badness, self.prior) = (index, x, badness, prior) }
        }
        var total = 0.0
        for c in text { total += advance(c) }
        let target = total / max(1, (total / maxWidth).rounded(.up))
        let suggested = text.contains { $0.scalar.value == 0x200B }
        func badness(_ width: Double, _ penalty: Double, _ last: Bool) -> Double {
            let ragged = (width - target) * (width - target)
            if last { return width < target ? ragged / 2 : ragged * 2 }
            return ragged + abs(penalty) * penalty
        }
        func evaluate(_ index: Int, _ x: Double, _ breaks: [Break], _ penalty: Double, _ last: Bool) -> Break {
            var best: Break?, bestBadness = badness(x, penalty, last)
            for b in breaks {
                let bad = badness(x - b.x, penalty, last) + b.badness
                if bad <= bestBadness { best = b; bestBadness = bad }
            }
            return Break(index: index, x: x, badness: bestBadness, prior: best)
        }
        var breaks: [Break] = []
        var x = 0.0
        for i in text.indices {
            let c = text[i].scalar.value
            if !whitespace.contains(c) { x += advance(text[i]) }
            guard i < text.count - 1 else { continue }
            let ideographic = allowsIdeographicBreaking(c)
            if breakable.contains(c) || ideographic {
                var penalty = 0.0
                if c == 0x0A { penalty -= 10_000 }
                if ideographic && suggested { penalty += 150 }
                if c == 0x28 || c == 0xFF08 { penalty += 50 }
                let next = text[i + 1].scalar.value
                if next == 0x29 || next == 0xFF09 { penalty += 50 }
                breaks.append(evaluate(i + 1, x, breaks, penalty, false))
            }
        }
        var indexes: [Int] = []
        var b: Break? = evaluate(text.count, x, breaks, 0, true)
        while let k = b { indexes.append(k.index); b = k.prior }
        var lines: [[TextCharacter]] = [], start = 0
        for end in indexes.reversed() {
            lines.append(Array(text[start..<end]))
            start = end
        }
        return lines
    }
}
