public import GeoBase
import ProtobufWire

// The glyph PBF codec lives in MapData beside the MVT codec: both are protobuf formats of the
// resources a map style names (tiles, glyph ranges), read over ProtobufWire, which MapData
// already depends on; the builder (MapRenderer, FreeType) and the reader (StyleRendering) both
// sit above MapData, so neither needs a new dependency.

/// One glyph of a glyph PBF range: a signed distance field of the glyph at 24 px per em with a
/// 3-pixel border round it (MapLibre's `glyphs.proto`, as node-fontnik writes it).
public struct SDFGlyph: Hashable, Sendable {
    /// The Unicode scalar, U+0000 to U+FFFF (glyph PBFs cover the Basic Multilingual Plane).
    public var id: UInt32
    /// `(width + 6) × (height + 6)` bytes, row by row from the top; 8-bit distance, 192 on the
    /// outline (cutoff 0.25), larger inside. Empty when the glyph has no ink (a space).
    public var bitmap: [UInt8]
    /// The ink's size in pixels, without the border.
    public var width: Int
    public var height: Int
    /// Pen position to the ink's left edge, pixels.
    public var left: Int
    /// The ink's top edge relative to the font's ascender, pixels, up positive (fontnik's
    /// `top − ascender`; MapLibre's shaping places the baseline 17 px under the line's top).
    public var top: Int
    /// Pen advance, pixels.
    public var advance: Int

    public init(id: UInt32, bitmap: [UInt8], width: Int, height: Int, left: Int, top: Int, advance: Int) {
        self.id = id
        self.bitmap = bitmap
        self.width = width
        self.height = height
        self.left = left
        self.top = top
        self.advance = advance
    }
}

/// The glyphs of one font stack in one range of 256 code points (`0-255`, `256-511`, …).
public struct GlyphFontStack: Hashable, Sendable {
    /// The font stack's name, e.g. "Open Sans Semibold, Arial Unicode MS Bold".
    public var name: String
    /// The range as written in the file, e.g. "0-255".
    public var range: String
    public var glyphs: [SDFGlyph]

    public init(name: String, range: String, glyphs: [SDFGlyph]) {
        self.name = name
        self.range = range
        self.glyphs = glyphs
    }
}

extension ErrorCode where Domain == MapDataError {
    /// A glyph PBF that breaks `glyphs.proto`: bad protobuf, a missing field, a bitmap whose
    /// size is not `(width + 6) × (height + 6)`, a code point past U+FFFF.
    public static var invalidGlyphs: Self { Self("invalid glyph PBF") }
}

/// MapLibre's glyph PBF (`glyphs.proto`: `glyphs { repeated fontstack stacks = 1 }`,
/// `fontstack { name = 1; range = 2; repeated glyph glyphs = 3 }`, `glyph { id = 1; bitmap = 2;
/// width = 3; height = 4; sint32 left = 5; sint32 top = 6; advance = 7 }`), decoded and encoded.
public enum GlyphPBF {
    /// The border round every glyph bitmap, pixels (MapLibre's `GLYPH_PBF_BORDER`).
    public static let border = 3
    /// The font size the distance fields are drawn at, pixels per em (MapLibre's `ONE_EM`).
    public static let size = 24
    /// The largest glyph side accepted, pixels: a 24 px glyph is rarely over 60; the bound
    /// keeps a hostile width × height from asking for gigabytes.
    public static let maximumSide = 1024

    /// The glyph ranges in `bytes`, usually one font stack.
    /// - Throws: `MapDataError.invalidGlyphs` with the byte offset of the field at fault and
    ///   the glyph's index and code point in the message.
    public static func decode(_ bytes: [UInt8]) throws(MapDataError) -> [GlyphFontStack] {
        do {
            return try bytes.withUnsafeBytes { raw in
                var r = WireReader(raw)
                var stacks: [GlyphFontStack] = []
                while !r.isAtEnd {
                    let at = raw.count - r.remaining
                    do {
                        let (field, type) = try r.readKey()
                        if field == 1 {
                            try WireReader.expect(type, .lengthDelimited, field: field)
                            let body = try r.readBytes()
                            stacks.append(try decodeStack(body, offset: raw.count - r.remaining - body.count, index: stacks.count))
                        } else {
                            try r.skip(type)
                        }
                    } catch let e as WireError {
                        throw DecodeFailure(message: e.message, offset: at)
                    } catch let e as DecodeFailure {
                        throw e
                    } catch {
                        throw DecodeFailure(message: "\(error)", offset: at)
                    }
                }
                return stacks
            }
        } catch let e as DecodeFailure {
            throw MapDataError(.invalidGlyphs, e.message, offset: e.offset)
        } catch {
            throw MapDataError(.invalidGlyphs, "\(error)")
        }
    }

    private struct DecodeFailure: Error {
        var message: String
        var offset: Int
    }

    private static func decodeStack(_ body: UnsafeRawBufferPointer, offset: Int, index: Int) throws(DecodeFailure) -> GlyphFontStack {
        var r = WireReader(body)
        var name: String?, range: String?
        var glyphs: [SDFGlyph] = []
        while !r.isAtEnd {
            let at = offset + body.count - r.remaining
            do {
                let (field, type) = try r.readKey()
                switch field {
                case 1, 2:
                    try WireReader.expect(type, .lengthDelimited, field: field)
                    let s = String(decoding: try r.readBytes(), as: UTF8.self)
                    if field == 1 { name = s } else { range = s }
                case 3:
                    try WireReader.expect(type, .lengthDelimited, field: field)
                    let g = try r.readBytes()
                    glyphs.append(try decodeGlyph(g, offset: offset + body.count - r.remaining - g.count, stack: index, index: glyphs.count))
                default:
                    try r.skip(type)
                }
            } catch let e as WireError {
                throw DecodeFailure(message: "font stack \(index): \(e.message)", offset: at)
            } catch let e as DecodeFailure {
                throw e
            } catch {
                throw DecodeFailure(message: "font stack \(index): \(error)", offset: at)
            }
        }
        guard let name else { throw DecodeFailure(message: "font stack \(index) has no name (field 1)", offset: offset) }
        return GlyphFontStack(name: name, range: range ?? "", glyphs: glyphs)
    }

    private static func decodeGlyph(_ body: UnsafeRawBufferPointer, offset: Int, stack: Int, index: Int) throws(DecodeFailure) -> SDFGlyph {
        var r = WireReader(body)
        var id: UInt64?
        var bitmap: [UInt8] = [], bitmapAt = offset
        var width: UInt64 = 0, height: UInt64 = 0, advance: UInt64 = 0
        var left: Int64 = 0, top: Int64 = 0
        let place = "font stack \(stack), glyph \(index)"
        while !r.isAtEnd {
            let at = offset + body.count - r.remaining
            do {
                let (field, type) = try r.readKey()
                switch field {
                case 2:
                    try WireReader.expect(type, .lengthDelimited, field: field)
                    bitmapAt = at
                    bitmap = Array(try r.readBytes())
                case 1, 3, 4, 7:
                    try WireReader.expect(type, .varint, field: field)
                    let v = try r.readVarint()
                    switch field {
                    case 1: id = v
                    case 3: width = v
                    case 4: height = v
                    default: advance = v
                    }
                case 5, 6:
                    try WireReader.expect(type, .varint, field: field)
                    let v = try r.readSignedVarint()
                    if field == 5 { left = v } else { top = v }
                default:
                    try r.skip(type)
                }
            } catch {
                throw DecodeFailure(message: "\(place): \(error.message)", offset: at)
            }
        }
        guard let id else { throw DecodeFailure(message: "\(place) has no id (field 1)", offset: offset) }
        let named = "\(place) (U+\(String(id, radix: 16, uppercase: true)))"
        guard id <= 0xFFFF else { throw DecodeFailure(message: "\(named): code point past U+FFFF", offset: offset) }
        guard width <= UInt64(maximumSide), height <= UInt64(maximumSide), advance <= UInt64(maximumSide),
              abs(left) <= Int64(maximumSide), abs(top) <= Int64(maximumSide) else {
            throw DecodeFailure(message: "\(named): metrics \(width)×\(height), left \(left), top \(top), advance \(advance) exceed \(maximumSide) px", offset: offset)
        }
        let expected = width > 0 && height > 0 ? (Int(width) + 2 * border) * (Int(height) + 2 * border) : 0
        guard bitmap.count == expected else {
            throw DecodeFailure(message: "\(named): bitmap of \(bitmap.count) bytes, \(width)×\(height) with a \(border) px border needs \(expected)", offset: bitmapAt)
        }
        return SDFGlyph(id: UInt32(id), bitmap: bitmap, width: Int(width), height: Int(height), left: Int(left), top: Int(top), advance: Int(advance))
    }

    /// The PBF of `stacks`, fields in `glyphs.proto` order; a glyph without ink has no bitmap
    /// field, as node-fontnik writes it.
    public static func encode(_ stacks: [GlyphFontStack]) -> [UInt8] {
        var out = WireWriter()
        for stack in stacks {
            var s = WireWriter()
            s.writeStringField(1, stack.name)
            s.writeStringField(2, stack.range)
            for g in stack.glyphs {
                var w = WireWriter(capacity: g.bitmap.count + 24)
                w.writeVarintField(1, Int64(g.id))
                if !g.bitmap.isEmpty { w.writeBytesField(2, g.bitmap) }
                w.writeVarintField(3, Int64(g.width))
                w.writeVarintField(4, Int64(g.height))
                w.writeSignedField(5, Int64(g.left))
                w.writeSignedField(6, Int64(g.top))
                w.writeVarintField(7, Int64(g.advance))
                s.writeMessageField(3, w)
            }
            out.writeMessageField(1, s)
        }
        return out.bytes
    }

    /// The range file name holding `codePoint` ("0-255", "256-511", …), nil past U+FFFF.
    public static func rangeName(_ codePoint: UInt32) -> String? {
        guard codePoint <= 0xFFFF else { return nil }
        let start = codePoint / 256 * 256
        return "\(start)-\(start + 255)"
    }
}
