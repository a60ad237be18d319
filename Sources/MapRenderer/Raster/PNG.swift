import ZlibCompression

/// PNG images (W3C PNG Specification, 2nd ed. = ISO/IEC 15948; RFC 2083 for PNG 1.0): an encoder
/// for `Pixmap`s and a decoder for every standard colour type and bit depth, interlaced or not.
/// Compression and CRCs go through ZlibCompression.
public enum PNG {
    /// The eight-byte signature every PNG starts with (§5.2).
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// How rows are filtered before compression (§9).
    public enum RowFilter: Sendable {
        /// Per row the filter with the smallest sum of absolute values of its bytes taken as
        /// signed (the heuristic of §12.8): smaller files, five trial filters per row.
        case adaptive
        /// Filter type 0 on every row, as Mapnik writes (`png_set_filter(…, PNG_FILTER_NONE)`):
        /// no trial work; maps of flat colours still compress well.
        case none
    }

    /// Encodes `image` as an 8-bit PNG: truecolour (colour type 2) when every pixel is opaque,
    /// else truecolour with alpha (type 6).
    /// - Parameters:
    ///   - level: zlib level, 0 … 9 (6 the default, zlib's and Mapnik's; 1 is about twice as fast).
    ///   - filter: the row filters, adaptive by default.
    ///   - premultipliedAlpha: write colour values multiplied by alpha, as stored (what a GL
    ///     framebuffer's `readPixels` returns and the Mapbox GL render tests' expected images
    ///     hold) rather than PNG's straight alpha; no difference where pixels are opaque.
    /// - Complexity: O(width × height).
    public static func encode(_ image: Pixmap, level: Int = 6, filter rowFilter: RowFilter = .adaptive,
                              premultipliedAlpha: Bool = false) throws(RenderError) -> [UInt8] {
        let rgba = premultipliedAlpha ? image.bytes : image.unpremultipliedBytes
        var opaque = true
        for i in stride(from: 3, to: rgba.count, by: 4) where rgba[i] != 255 { opaque = false; break }
        let channels = opaque ? 3 : 4
        let rowBytes = image.width * channels
        var raw = [UInt8](repeating: 0, count: (rowBytes + 1) * image.height)
        // The unfiltered row and the one above it (zeros above the first, §9.2).
        var rows = [UInt8](repeating: 0, count: 2 * rowBytes)
        rgba.withUnsafeBufferPointer { source in
            raw.withUnsafeMutableBufferPointer { raw in
                rows.withUnsafeMutableBufferPointer { rows in
                    var current = UnsafeMutableBufferPointer(rebasing: rows[0..<rowBytes])
                    var previous = UnsafeMutableBufferPointer(rebasing: rows[rowBytes...])
                    for y in 0..<image.height {
                        let base = y * image.width * 4
                        if opaque {
                            for x in 0..<image.width {
                                current[x * 3] = source[base + x * 4]
                                current[x * 3 + 1] = source[base + x * 4 + 1]
                                current[x * 3 + 2] = source[base + x * 4 + 2]
                            }
                        } else {
                            _ = current.update(fromContentsOf: source[base..<(base + rowBytes)])
                        }
                        let out = UnsafeMutableBufferPointer(rebasing: raw[(y * (rowBytes + 1))..<((y + 1) * (rowBytes + 1))])
                        let type: UInt8 = rowFilter == .none ? 0 : bestFilter(current, previous, bpp: channels)
                        out[0] = type
                        filter(type, current, previous, bpp: channels, into: UnsafeMutableBufferPointer(rebasing: out[1...]))
                        swap(&previous, &current)
                    }
                }
            }
        }
        let compressed: [UInt8]
        do { compressed = try Zlib.deflate(raw, level: level) } catch {
            throw RenderError(.invalidPNG, "PNG compression failed: \(error)")
        }
        var out = signature
        var header: [UInt8] = []
        append32(UInt32(image.width), to: &header)
        append32(UInt32(image.height), to: &header)
        header += [8, opaque ? 2 : 6, 0, 0, 0]
        appendChunk("IHDR", header, to: &out)
        appendChunk("IDAT", compressed, to: &out)
        appendChunk("IEND", [], to: &out)
        return out
    }

    /// The filter type (§9.2) of the heuristic of §12.8 for row `cur` below `prev`: the one whose
    /// filtered bytes, taken as signed, have the smallest sum of absolute values (the first of
    /// equal ones). All five sums in one pass over the row.
    private static func bestFilter(_ cur: UnsafeMutableBufferPointer<UInt8>, _ prev: UnsafeMutableBufferPointer<UInt8>, bpp: Int) -> UInt8 {
        @inline(__always) func cost(_ v: UInt8) -> Int32 { abs(Int32(Int8(bitPattern: v))) }
        var s0: Int32 = 0, s1: Int32 = 0, s2: Int32 = 0, s3: Int32 = 0, s4: Int32 = 0
        @inline(__always) func add(_ x: UInt8, _ a: UInt8, _ b: UInt8, _ c: UInt8) {
            s0 &+= cost(x)
            s1 &+= cost(x &- a)
            s2 &+= cost(x &- b)
            s3 &+= cost(x &- UInt8((UInt16(a) + UInt16(b)) >> 1))
            s4 &+= cost(x &- paeth(a, b, c))
        }
        // The first pixel has no left neighbour; the rest, without that test, vectorises.
        let first = min(bpp, cur.count)
        for i in 0..<first { add(cur[i], 0, prev[i], 0) }
        for i in first..<cur.count { add(cur[i], cur[i - bpp], prev[i], prev[i - bpp]) }
        var best: UInt8 = 0, bestScore = s0
        if s1 < bestScore { (best, bestScore) = (1, s1) }
        if s2 < bestScore { (best, bestScore) = (2, s2) }
        if s3 < bestScore { (best, bestScore) = (3, s3) }
        if s4 < bestScore { best = 4 }
        return best
    }

    /// Writes row `cur` (below `prev`) filtered with `type` (§9.2) into `out`.
    private static func filter(_ type: UInt8, _ cur: UnsafeMutableBufferPointer<UInt8>, _ prev: UnsafeMutableBufferPointer<UInt8>, bpp: Int,
                               into out: UnsafeMutableBufferPointer<UInt8>) {
        let n = cur.count, first = min(bpp, n)
        // One loop per filter type, the first pixel (no left neighbour) apart.
        switch type {
        case 1:
            for i in 0..<first { out[i] = cur[i] }
            for i in first..<n { out[i] = cur[i] &- cur[i - bpp] }
        case 2:
            for i in 0..<n { out[i] = cur[i] &- prev[i] }
        case 3:
            for i in 0..<first { out[i] = cur[i] &- prev[i] >> 1 }
            for i in first..<n { out[i] = cur[i] &- UInt8((UInt16(cur[i - bpp]) + UInt16(prev[i])) >> 1) }
        case 4:
            for i in 0..<first { out[i] = cur[i] &- prev[i] }
            for i in first..<n { out[i] = cur[i] &- paeth(cur[i - bpp], prev[i], prev[i - bpp]) }
        default:
            for i in 0..<n { out[i] = cur[i] }
        }
    }

    /// The Paeth predictor (§9.4): whichever of left, up, upper-left is nearest to left + up − upper-left.
    @inline(__always)
    static func paeth(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt8 {
        let p = Int(a) + Int(b) - Int(c)
        let pa = abs(p - Int(a)), pb = abs(p - Int(b)), pc = abs(p - Int(c))
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    private static func append32(_ v: UInt32, to out: inout [UInt8]) {
        out += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        append32(UInt32(data.count), to: &out)
        let typed = Array(type.utf8) + data
        out += typed
        append32(typed.withUnsafeBytes { Zlib.crc32($0) }, to: &out)
    }

    // MARK: Decoding

    /// Decodes a PNG into a `Pixmap` (colour types 0, 2, 3, 4, 6 at every allowed bit depth,
    /// 16-bit samples rounded to 8, `tRNS` transparency, Adam7 interlacing; ancillary chunks
    /// other than `tRNS` are skipped).
    /// - Throws: `RenderError` `.invalidPNG` with the byte offset for a bad signature, chunk,
    ///   CRC, header, palette index, filter type or zlib stream, or for missing / extra image
    ///   data; `.unsupportedPNG` for an unknown critical chunk; `.invalidSize` for an image
    ///   above `Pixmap.maxSide` pixels a side.
    /// - Complexity: O(file size + width × height).
    public static func decode(_ bytes: [UInt8]) throws(RenderError) -> Pixmap {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else {
            throw RenderError(.invalidPNG, "not a PNG: the 8-byte signature is missing", offset: 0)
        }
        var offset = 8
        var header: Header?
        var palette: [UInt8] = []
        var transparency: [UInt8]?
        var data: [UInt8] = []
        var ended = false
        while !ended {
            guard offset + 12 <= bytes.count else { throw RenderError(.invalidPNG, "PNG ends inside a chunk header, before IEND", offset: offset) }
            let length = Int(read32(bytes, offset))
            guard length <= 0x7FFF_FFFF, offset + 12 + length <= bytes.count else {
                throw RenderError(.invalidPNG, "PNG chunk of \(length) bytes runs past the end of the file", offset: offset)
            }
            let typeBytes = Array(bytes[(offset + 4)..<(offset + 8)])
            guard typeBytes.allSatisfy({ (65...90).contains($0) || (97...122).contains($0) }) else {
                throw RenderError(.invalidPNG, "PNG chunk type is not four letters", offset: offset + 4)
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let body = offset + 8
            let stored = read32(bytes, body + length)
            let computed = bytes.withUnsafeBytes { Zlib.crc32(UnsafeRawBufferPointer(rebasing: $0[(offset + 4)..<(body + length)])) }
            guard stored == computed else { throw RenderError(.invalidPNG, "PNG chunk \(type) fails its CRC", offset: body + length) }
            let chunk = bytes[body..<(body + length)]
            if header == nil && type != "IHDR" { throw RenderError(.invalidPNG, "PNG starts with \(type), not IHDR", offset: offset) }
            switch type {
            case "IHDR":
                guard header == nil else { throw RenderError(.invalidPNG, "PNG has a second IHDR", offset: offset) }
                header = try Header(Array(chunk), offset: body)
            case "PLTE":
                guard length % 3 == 0, (3...768).contains(length) else { throw RenderError(.invalidPNG, "PNG palette of \(length) bytes is not 1…256 RGB entries", offset: body) }
                palette = Array(chunk)
            case "tRNS": transparency = Array(chunk)
            case "IDAT": data += chunk
            case "IEND": ended = true
            default:
                // Bit 5 of the first letter: lowercase = ancillary, safe to skip (§5.4).
                if typeBytes[0] & 0x20 == 0 { throw RenderError(.unsupportedPNG, "PNG has an unknown critical chunk \(type)", offset: offset) }
            }
            offset = body + length + 4
        }
        guard let header else { throw RenderError(.invalidPNG, "PNG has no IHDR", offset: 8) }
        if header.colorType == 3 && palette.isEmpty { throw RenderError(.invalidPNG, "palette PNG without a PLTE chunk", offset: offset) }
        let raw: [UInt8]
        do { raw = try data.withUnsafeBytes { try Zlib.inflate($0, size: header.rawSize) } } catch {
            throw RenderError(.invalidPNG, "PNG image data: \(error)", offset: offset)
        }
        return try header.pixels(raw, palette: palette, transparency: transparency)
    }

    private static func read32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// The IHDR fields (§11.2.2) and the layout they imply.
    private struct Header {
        let width: Int, height: Int, bitDepth: Int, colorType: Int, interlaced: Bool
        /// Samples per pixel.
        let channels: Int

        init(_ c: [UInt8], offset: Int) throws(RenderError) {
            guard c.count == 13 else { throw RenderError(.invalidPNG, "IHDR is \(c.count) bytes, not 13", offset: offset) }
            width = Int(PNG.read32(c, 0)); height = Int(PNG.read32(c, 4))
            bitDepth = Int(c[8]); colorType = Int(c[9])
            guard width > 0, height > 0 else { throw RenderError(.invalidPNG, "PNG size \(width)×\(height) has a zero side", offset: offset) }
            guard width <= Pixmap.maxSide, height <= Pixmap.maxSide else {
                throw RenderError(.invalidSize, "PNG size \(width)×\(height) is above \(Pixmap.maxSide) pixels a side", offset: offset)
            }
            let allowed: [Int: [Int]] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
            guard let depths = allowed[colorType], depths.contains(bitDepth) else {
                throw RenderError(.invalidPNG, "PNG colour type \(colorType) with bit depth \(bitDepth) is not allowed", offset: offset + 8)
            }
            guard c[10] == 0, c[11] == 0, c[12] <= 1 else {
                throw RenderError(.invalidPNG, "PNG compression, filter or interlace method is unknown", offset: offset + 10)
            }
            interlaced = c[12] == 1
            channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1
        }

        var bitsPerPixel: Int { channels * bitDepth }
        /// Bytes between a byte and the one it is filtered against (§9.2: at least 1).
        var filterDistance: Int { max(1, bitsPerPixel / 8) }
        func rowBytes(_ w: Int) -> Int { (w * bitsPerPixel + 7) / 8 }

        /// Adam7 passes (§8.2) as (x0, y0, dx, dy), or the whole image.
        var passes: [(Int, Int, Int, Int)] {
            interlaced ? [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)] : [(0, 0, 1, 1)]
        }

        func passSize(_ p: (Int, Int, Int, Int)) -> (Int, Int) {
            ((width - p.0 + p.2 - 1) / p.2, (height - p.1 + p.3 - 1) / p.3)
        }

        /// The inflated size: each pass's rows with their filter bytes.
        var rawSize: Int {
            passes.reduce(0) { sum, p in
                let (w, h) = passSize(p)
                return w == 0 || h == 0 ? sum : sum + h * (rowBytes(w) + 1)
            }
        }

        func pixels(_ raw: [UInt8], palette: [UInt8], transparency: [UInt8]?) throws(RenderError) -> Pixmap {
            var rgba = [UInt8](repeating: 0, count: width * height * 4)
            var at = 0
            let maxSample = (1 << bitDepth) - 1
            for pass in passes {
                let (pw, ph) = passSize(pass)
                guard pw > 0, ph > 0 else { continue }
                let rb = rowBytes(pw)
                var previous = [UInt8](repeating: 0, count: rb)
                var row = [UInt8](repeating: 0, count: rb)
                for py in 0..<ph {
                    let type = raw[at]
                    guard type <= 4 else { throw RenderError(.invalidPNG, "PNG row \(py) has filter type \(type), not 0…4") }
                    for i in 0..<rb {
                        let x = raw[at + 1 + i]
                        let a = i >= filterDistance ? row[i - filterDistance] : 0, b = previous[i], c = i >= filterDistance ? previous[i - filterDistance] : 0
                        switch type {
                        case 1: row[i] = x &+ a
                        case 2: row[i] = x &+ b
                        case 3: row[i] = x &+ UInt8((Int(a) + Int(b)) / 2)
                        case 4: row[i] = x &+ PNG.paeth(a, b, c)
                        default: row[i] = x
                        }
                    }
                    at += rb + 1
                    let y = pass.1 + py * pass.3
                    for px in 0..<pw {
                        let x = pass.0 + px * pass.2
                        let o = (y * width + x) * 4
                        let pixel = try decodePixel(row, px, maxSample: maxSample, palette: palette, transparency: transparency)
                        rgba[o] = pixel.0; rgba[o + 1] = pixel.1; rgba[o + 2] = pixel.2; rgba[o + 3] = pixel.3
                    }
                    swap(&previous, &row)
                }
            }
            do { return try Pixmap(width: width, height: height, straightRGBA: rgba) } catch { throw error }
        }

        /// Sample `k` of pixel `px` of an unfiltered row, at full bit depth.
        @inline(__always)
        private func sample(_ row: [UInt8], _ px: Int, _ k: Int) -> Int {
            switch bitDepth {
            case 8: return Int(row[px * channels + k])
            case 16: let i = (px * channels + k) * 2; return Int(row[i]) << 8 | Int(row[i + 1])
            default:
                let bit = (px * channels + k) * bitDepth
                return Int(row[bit / 8] >> (8 - bitDepth - bit % 8)) & ((1 << bitDepth) - 1)
            }
        }

        private func decodePixel(_ row: [UInt8], _ px: Int, maxSample: Int, palette: [UInt8], transparency: [UInt8]?) throws(RenderError) -> (UInt8, UInt8, UInt8, UInt8) {
            // Scaling to 8 bits rounds (§13.12): v · 255 / max.
            func to8(_ v: Int) -> UInt8 { UInt8((v * 255 + maxSample / 2) / maxSample) }
            func trnsValue(_ i: Int) -> Int? {
                guard let t = transparency, t.count >= 2 * i + 2 else { return nil }
                return Int(t[2 * i]) << 8 | Int(t[2 * i + 1])
            }
            switch colorType {
            case 0:
                let g = sample(row, px, 0)
                let a: UInt8 = trnsValue(0) == g ? 0 : 255
                return (to8(g), to8(g), to8(g), a)
            case 2:
                let r = sample(row, px, 0), g = sample(row, px, 1), b = sample(row, px, 2)
                let clear = transparency != nil && trnsValue(0) == r && trnsValue(1) == g && trnsValue(2) == b
                return (to8(r), to8(g), to8(b), clear ? 0 : 255)
            case 3:
                let i = sample(row, px, 0)
                guard 3 * i + 2 < palette.count else { throw RenderError(.invalidPNG, "PNG palette index \(i) is past its \(palette.count / 3) entries") }
                let a: UInt8 = transparency.map { i < $0.count ? $0[i] : 255 } ?? 255
                return (palette[3 * i], palette[3 * i + 1], palette[3 * i + 2], a)
            case 4:
                let g = to8(sample(row, px, 0))
                return (g, g, g, to8(sample(row, px, 1)))
            default:
                return (to8(sample(row, px, 0)), to8(sample(row, px, 1)), to8(sample(row, px, 2)), to8(sample(row, px, 3)))
            }
        }
    }
}
