#if canImport(CoreText)
import CoreFoundation
import CoreGraphics
import CoreText
import Foundation

/// One font face through Core Text, on Apple platforms: Core Text shapes runs
/// (`CTLineCreateWithAttributedString`, its glyph runs) and gives glyph outlines
/// (`CTFontCreatePathForGlyph`), behind the same ``GlyphFace`` interface as the HarfBuzz and
/// FreeType ``FontFace``. Sized fonts are made per size and kept.
///
/// Written against Apple's documented API (signatures checked one by one: Core Text's
/// CTFont, CTLine and CTRun functions, Core Graphics' CGDataProvider, CGFont and
/// `CGPath.applyWithBlock`) and parsed by `swiftc -parse`; not compiled or tested, since the
/// project is built on Linux.
public final class CoreTextFace: GlyphFace {
    public let name: String
    private let base: CTFont
    /// The face's PostScript name: a glyph run in any other font is Core Text's fallback.
    private let postScriptName: String
    private var sized: [Double: CTFont] = [:]

    /// A face from font file bytes (`.ttf`, `.otf`).
    /// - Throws: `RenderError.font` naming `name` when Core Graphics cannot read them.
    public init(data: [UInt8], name: String) throws(RenderError) {
        guard let provider = CGDataProvider(data: Data(data) as CFData), let font = CGFont(provider) else {
            throw RenderError(.font, "\(name): not a font Core Text can read")
        }
        self.name = name
        base = CTFontCreateWithGraphicsFont(font, 1, nil, nil)
        postScriptName = CTFontCopyPostScriptName(base) as String
    }

    /// An installed font by its PostScript or full name ("NotoSans-Regular", "Helvetica").
    public init(installedFontNamed fontName: String) {
        name = fontName
        base = CTFontCreateWithName(fontName as CFString, 1, nil)
        postScriptName = CTFontCopyPostScriptName(base) as String
    }

    private func font(size: Double) -> CTFont {
        if let f = sized[size] { return f }
        let f = CTFontCreateCopyWithAttributes(base, CGFloat(size), nil, nil)
        sized[size] = f
        return f
    }

    /// Whether the face's cmap maps `scalar` (a scalar beyond the BMP is passed as its UTF-16
    /// surrogate pair, as `CTFontGetGlyphsForCharacters` takes them).
    public func covers(_ scalar: Unicode.Scalar) -> Bool {
        let utf16 = Array(String(scalar).utf16)
        var glyphs = [CGGlyph](repeating: 0, count: utf16.count)
        return CTFontGetGlyphsForCharacters(base, utf16, &glyphs, utf16.count)
    }

    /// `text` laid out as one Core Text line in this face; glyphs sorted left to right by their
    /// positions (relative to the line's origin, `CTRunGetPositions`; Core Text places
    /// right-to-left runs itself), y flipped to point down. Glyphs of a run Core Text set in a
    /// fallback font (characters this face lacks) become this face's missing glyph (0) with
    /// their advance: their glyph numbers mean nothing in this face.
    public func shape(_ text: String, size: Double) -> [GlyphFaceGlyph] {
        let attributes = [kCTFontAttributeName as String: font(size: size)] as CFDictionary
        guard let string = CFAttributedStringCreate(kCFAllocatorDefault, text as CFString, attributes) else { return [] }
        let line = CTLineCreateWithAttributedString(string)
        var placed: [(glyph: CGGlyph, position: CGPoint, advance: CGSize)] = []
        for run in CTLineGetGlyphRuns(line) as? [CTRun] ?? [] {
            let count = CTRunGetGlyphCount(run)
            guard count > 0 else { continue }
            // A CF object in the dictionary: the cast to a CF type cannot fail.
            let runFont = (CTRunGetAttributes(run) as NSDictionary)[kCTFontAttributeName as String].map { $0 as! CTFont }
            let fallback = runFont.map { CTFontCopyPostScriptName($0) as String != postScriptName } ?? false
            var glyphs = [CGGlyph](repeating: 0, count: count)
            var positions = [CGPoint](repeating: .zero, count: count)
            var advances = [CGSize](repeating: .zero, count: count)
            let all = CFRange(location: 0, length: count)
            CTRunGetGlyphs(run, all, &glyphs)
            CTRunGetPositions(run, all, &positions)
            CTRunGetAdvances(run, all, &advances)
            for i in 0..<count { placed.append((fallback ? 0 : glyphs[i], positions[i], advances[i])) }
        }
        var pen = 0.0
        return placed.enumerated().sorted { ($0.element.position.x, $0.offset) < ($1.element.position.x, $1.offset) }.map { _, g in
            let glyph = GlyphFaceGlyph(glyph: UInt32(g.glyph), x: Double(g.position.x) - pen, y: -Double(g.position.y), advance: Double(g.advance.width))
            pen += Double(g.advance.width)
            return glyph
        }
    }

    public func outline(glyph: UInt32, size: Double) -> Path {
        guard let cgPath = CTFontCreatePathForGlyph(font(size: size), CGGlyph(truncatingIfNeeded: glyph), nil) else { return Path() }
        var path = Path()
        func point(_ p: CGPoint) -> Point { Point(x: Double(p.x), y: -Double(p.y)) }
        cgPath.applyWithBlock { element in
            let e = element.pointee
            switch e.type {
            case .moveToPoint: path.move(to: point(e.points[0]))
            case .addLineToPoint: path.line(to: point(e.points[0]))
            case .addQuadCurveToPoint: path.quad(to: point(e.points[1]), control: point(e.points[0]))
            case .addCurveToPoint: path.cubic(to: point(e.points[2]), control1: point(e.points[0]), control2: point(e.points[1]))
            case .closeSubpath: path.close()
            @unknown default: break
            }
        }
        return path
    }
}
#endif
