/// An image in memory: premultiplied RGBA, 8 bits per channel, row-major from the top-left.
/// The only mutable thing in drawing (tiny-skia's split: paths are values, the pixmap mutates).
public struct Pixmap: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width × height × 4` bytes: R, G, B, A, each colour channel already multiplied by A.
    public internal(set) var bytes: [UInt8]

    /// A transparent image.
    /// - Throws: `RenderError.invalidSize` unless both sides are 1…16384 pixels.
    public init(width: Int, height: Int) throws(RenderError) {
        guard (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height) else {
            throw RenderError(.invalidSize, "image size \(width)×\(height) is outside 1…\(Self.maxSide) pixels a side")
        }
        self.width = width
        self.height = height
        bytes = [UInt8](repeating: 0, count: width * height * 4)
    }

    /// An image from premultiplied RGBA bytes.
    init(width: Int, height: Int, premultiplied: [UInt8]) {
        self.width = width
        self.height = height
        bytes = premultiplied
    }

    /// The largest side accepted, pixels (a 16384² image is 1 GiB).
    public static let maxSide = 16_384

    /// The straight-alpha colour of pixel (x, y).
    public func color(x: Int, y: Int) -> Color {
        let i = (y * width + x) * 4
        let a = bytes[i + 3]
        guard a > 0 else { return .transparent }
        func unmultiply(_ v: UInt8) -> UInt8 { UInt8(min(255, (Int(v) * 255 + Int(a) / 2) / Int(a))) }
        return Color(red: unmultiply(bytes[i]), green: unmultiply(bytes[i + 1]), blue: unmultiply(bytes[i + 2]), alpha: a)
    }

    /// Replaces every pixel with `color`.
    public mutating func clear(to color: Color) {
        let p = Self.premultiplied(color)
        let word = UInt32(littleEndian: UInt32(p.0) | UInt32(p.1) << 8 | UInt32(p.2) << 16 | UInt32(p.3) << 24)
        bytes.withUnsafeMutableBytes { raw in
            for i in 0..<(raw.count / 4) { raw.storeBytes(of: word, toByteOffset: i * 4, as: UInt32.self) }
        }
    }

    /// Composites `color` over the image through `mask` (Porter–Duff source-over on
    /// premultiplied values: `dst = src·m + dst·(1 − αsrc·m)`, m the coverage).
    public mutating func composite(_ color: Color, through mask: CoverageMask) {
        guard color.alpha > 0 else { return }
        mask.values.withUnsafeBufferPointer { v in
            for s in mask.spans {
                composite(color, row: mask.originY + Int(s.y), x: mask.originX + Int(s.x),
                          coverage: UnsafeBufferPointer(rebasing: v[Int(s.offset)..<Int(s.offset + s.count)]))
            }
        }
    }

    /// Composites `color` through one run of coverage values starting at pixel (x, row);
    /// the parts outside the image are skipped.
    public mutating func composite(_ color: Color, row y: Int, x: Int, coverage: UnsafeBufferPointer<Float>) {
        guard y >= 0, y < height, color.alpha > 0 else { return }
        let start = max(x, 0), end = min(x + coverage.count, width)
        guard start < end else { return }
        let sa = Float(color.alpha) / 255
        let sr = Float(color.red) * sa, sg = Float(color.green) * sa, sb = Float(color.blue) * sa, s255 = sa * 255
        let w = width
        // An opaque colour at full coverage replaces the pixel.
        let opaque = color.alpha == 255
        bytes.withUnsafeMutableBufferPointer { px in
            // Pixels as words: the bytes R, G, B, A from the lowest address are little-endian R first.
            px.withMemoryRebound(to: UInt32.self) { words in
                // xi runs from `start` to `end`, inside the row and the run: the offsets below
                // are worked out without overflow checks.
                var xi = start
                while xi < end {
                    let c = coverage[xi &- x]
                    if c <= 0 { xi &+= 1; continue }
                    let i = y &* w &+ xi
                    if opaque && c >= 1 {
                        // A run at full coverage: filled as one block.
                        var stop = xi &+ 1
                        while stop < end, coverage[stop &- x] >= 1 { stop &+= 1 }
                        UnsafeMutableBufferPointer(rebasing: words[i..<(i &+ stop &- xi)]).update(repeating: Self.word(opaque: color))
                        xi = stop
                        continue
                    }
                    xi &+= 1
                    let k = 1 - sa * c
                    if k <= 0 {
                        words[i] = Self.pixel(sr, sg, sb, s255).littleEndian
                    } else {
                        let d = UInt32(littleEndian: words[i])
                        words[i] = Self.pixel(sr * c + Float(d & 0xFF) * k, sg * c + Float(d >> 8 & 0xFF) * k,
                                              sb * c + Float(d >> 16 & 0xFF) * k, s255 * c + Float(d >> 24) * k).littleEndian
                    }
                }
            }
        }
    }

    /// Replaces `count` pixels of row `y` from column `x` with the opaque `color` (what
    /// compositing it at full coverage gives); the parts outside the image are skipped.
    mutating func replace(row y: Int, x: Int, count: Int, with color: Color) {
        precondition(color.alpha == 255, "only an opaque colour replaces pixels")
        guard y >= 0, y < height else { return }
        let start = max(x, 0), end = min(x + count, width)
        guard start < end else { return }
        let i = y * width
        bytes.withUnsafeMutableBufferPointer { px in
            px.withMemoryRebound(to: UInt32.self) { words in
                UnsafeMutableBufferPointer(rebasing: words[(i + start)..<(i + end)]).update(repeating: Self.word(opaque: color))
            }
        }
    }

    /// An opaque colour's pixel as the word it is stored as (R, G, B, A from the lowest address).
    @inline(__always)
    private static func word(opaque color: Color) -> UInt32 {
        (UInt32(color.red) | UInt32(color.green) << 8 | UInt32(color.blue) << 16 | 0xFF00_0000).littleEndian
    }

    /// Four channel values (≥ 0) rounded to bytes, at most 255, packed R, G, B, A from the low
    /// byte. Rounding is the float unit's own (to nearest, ties to even) when 2²³ is added: the
    /// low bits of the sum are the integer, with no range-checked conversion per channel.
    @inline(__always)
    private static func pixel(_ r: Float, _ g: Float, _ b: Float, _ a: Float) -> UInt32 {
        func byte(_ v: Float) -> UInt32 { (min(255, v) + 8_388_608).bitPattern & 0xFF }
        return byte(r) | byte(g) << 8 | byte(b) << 16 | byte(a) << 24
    }

    /// The `width × height` part of the image whose top-left pixel is (x, y).
    /// - Throws: `RenderError.invalidSize` unless the part lies inside the image and is not empty.
    public func cropped(x: Int, y: Int, width w: Int, height h: Int) throws(RenderError) -> Pixmap {
        guard w > 0, h > 0, x >= 0, y >= 0, x + w <= width, y + h <= height else {
            throw RenderError(.invalidSize, "\(w)×\(h) at (\(x), \(y)) is not inside the \(width)×\(height) image")
        }
        var out = [UInt8]()
        out.reserveCapacity(w * h * 4)
        for row in y..<(y + h) { out += bytes[((row * width + x) * 4)..<((row * width + x + w) * 4)] }
        return Pixmap(width: w, height: h, premultiplied: out)
    }

    /// Replaces the pixels under `image`, placed with its top-left pixel at (x, y), by the
    /// image's own (no blending: the inverse of `cropped`).
    /// - Throws: `RenderError.invalidSize` unless the image lies inside this one.
    public mutating func replace(x: Int, y: Int, with image: Pixmap) throws(RenderError) {
        guard x >= 0, y >= 0, x + image.width <= width, y + image.height <= height else {
            throw RenderError(.invalidSize, "\(image.width)×\(image.height) at (\(x), \(y)) is not inside the \(width)×\(height) image")
        }
        let rowBytes = image.width * 4
        for row in 0..<image.height {
            let to = ((y + row) * width + x) * 4
            bytes.replaceSubrange(to..<(to + rowBytes), with: image.bytes[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
    }

    /// The image with each pixel made a `factor × factor` block (nearest neighbour): exact, for
    /// an icon drawn for one pixel ratio that is shown at a whole multiple of it.
    /// - Throws: `RenderError.invalidSize` unless `factor` ≥ 1 and the result is at most 16384
    ///   pixels a side.
    public func magnified(by factor: Int) throws(RenderError) -> Pixmap {
        guard factor >= 1, width <= Self.maxSide / factor, height <= Self.maxSide / factor else {
            throw RenderError(.invalidSize, "\(width)×\(height) magnified \(factor) times is outside 1…\(Self.maxSide) pixels a side")
        }
        var out = [UInt8]()
        out.reserveCapacity(width * height * factor * factor * 4)
        for y in 0..<(height * factor) {
            for x in 0..<(width * factor) {
                let i = ((y / factor) * width + x / factor) * 4
                out += bytes[i..<(i + 4)]
            }
        }
        return Pixmap(width: width * factor, height: height * factor, premultiplied: out)
    }

    /// Draws each contour as an anti-aliased line one pixel wide (Wu, "An Efficient
    /// Antialiasing Technique", SIGGRAPH 1991): one step per pixel along the major axis, the
    /// colour split between the two pixels the line's centre passes between. Each segment
    /// covers the pixel centres in [start, end) along its major axis, so a vertex is drawn once.
    /// - Complexity: O(line length in pixels inside the image).
    mutating func drawHairlines(_ contours: [Path.Contour], color: Color) {
        guard color.alpha > 0 else { return }
        let sa = Float(color.alpha) / 255
        let src = (Float(color.red) * sa, Float(color.green) * sa, Float(color.blue) * sa, sa * 255)
        let w = width, h = height
        bytes.withUnsafeMutableBufferPointer { px in
            func blend(_ x: Int, _ y: Int, _ c: Float) {
                guard x >= 0, x < w, y >= 0, y < h, c > 0 else { return }
                let i = (y * w + x) * 4, k = 1 - sa * c
                px[i] = UInt8(min(255, src.0 * c + Float(px[i]) * k + 0.5))
                px[i + 1] = UInt8(min(255, src.1 * c + Float(px[i + 1]) * k + 0.5))
                px[i + 2] = UInt8(min(255, src.2 * c + Float(px[i + 2]) * k + 0.5))
                px[i + 3] = UInt8(min(255, src.3 * c + Float(px[i + 3]) * k + 0.5))
            }
            for contour in contours where contour.points.count > 1 {
                let p = contour.points
                let count = contour.isClosed ? p.count : p.count - 1
                for i in 0..<count {
                    let a = p[i], b = p[(i + 1) % p.count]
                    guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { continue }
                    let dx = b.x - a.x, dy = b.y - a.y
                    let xMajor = abs(dx) >= abs(dy)
                    // Along the major axis u, across it v; pixel centres at u + 0.5.
                    let (u0, u1, v0, slope) = xMajor ? (a.x, b.x, a.y, dx == 0 ? 0 : dy / dx) : (a.y, b.y, a.x, dx / dy)
                    let limit = Double(xMajor ? w : h)
                    let first = max(0, (min(u0, u1) - 0.5).rounded(.up)), last = min(limit, (max(u0, u1) - 0.5).rounded(.up))
                    guard first < last else { continue }
                    for step in Int(first)..<Int(last) {
                        let v = v0 + (Double(step) + 0.5 - u0) * slope - 0.5
                        let row = v.rounded(.down)
                        let f = Float(v - row)
                        let r = Int(max(-2, min(row, Double(max(w, h)) + 1)))
                        if xMajor { blend(step, r, 1 - f); blend(step, r + 1, f) } else { blend(r, step, 1 - f); blend(r + 1, step, f) }
                    }
                }
            }
        }
    }

    /// Calls `body` with the premultiplied RGBA bytes to write in place (a compositor filling
    /// a frame it resampled from other images).
    public mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try bytes.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// ``withUnsafeMutableBytes(_:)`` for a `body` that returns nothing (the shaders'): not
    /// generic, so a call from another module looks nothing up at run time (the generic one,
    /// unspecialized there, fetches `[UInt8]`'s type metadata at every call, some 300
    /// instructions).
    public mutating func withUnsafeMutableBytes(_ body: (UnsafeMutableBufferPointer<UInt8>) throws -> Void) rethrows {
        try bytes.withUnsafeMutableBufferPointer { try body($0) }
    }

    /// `color` with its channels multiplied by its alpha, rounded.
    public static func premultiplied(_ c: Color) -> (UInt8, UInt8, UInt8, UInt8) {
        func m(_ v: UInt8) -> UInt8 { UInt8((Int(v) * Int(c.alpha) + 127) / 255) }
        return (m(c.red), m(c.green), m(c.blue), c.alpha)
    }

    /// Straight-alpha RGBA bytes (what PNG stores).
    public var unpremultipliedBytes: [UInt8] {
        var out = bytes
        for i in stride(from: 0, to: out.count, by: 4) {
            let a = Int(out[i + 3])
            if a == 0 || a == 255 { continue }
            for k in 0..<3 { out[i + k] = UInt8(min(255, (Int(out[i + k]) * 255 + a / 2) / a)) }
        }
        return out
    }

    /// An image from straight-alpha RGBA bytes.
    public init(width: Int, height: Int, straightRGBA: [UInt8]) throws(RenderError) {
        try self.init(width: width, height: height)
        guard straightRGBA.count == width * height * 4 else {
            throw RenderError(.invalidSize, "\(straightRGBA.count) bytes for a \(width)×\(height) RGBA image, expected \(width * height * 4)")
        }
        bytes = straightRGBA
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let a = Int(bytes[i + 3])
            if a == 255 { continue }
            for k in 0..<3 { bytes[i + k] = UInt8((Int(bytes[i + k]) * a + 127) / 255) }
        }
    }
}
