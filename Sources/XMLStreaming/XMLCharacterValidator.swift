/// Finds the first byte of the input that is not part of an XML character (XML 1.0 §2.2:
/// `#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]`) encoded as
/// well-formed UTF-8 (Unicode 15, Table 3-7: no overlong forms, no surrogates, nothing above
/// U+10FFFF). U+FFFE and U+FFFF are let through (they need a lookahead of three bytes and
/// no reader here gives them a meaning).
///
/// The scanner feeds it every byte as it is read, in order; the state carries a sequence
/// split between two reads. A sequence cut by the end of the input is not reported: the
/// input ending there is already a truncation. It also counts the line feeds, for the
/// scanner's line numbers, in the same pass.
struct XMLCharacterValidator {
    /// The first bad byte: its absolute offset and what is wrong with it.
    struct Invalid {
        var offset: Int
        var message: String
        /// A zero byte or a UTF-16 byte-order mark at the start: UTF-16 or UTF-32 input.
        var isWideEncoding: Bool
    }

    private(set) var invalid: Invalid?
    /// Line feeds in all the bytes given so far (after the first bad byte too).
    private(set) var lineFeeds = 0
    /// Continuation bytes still expected in the current sequence.
    private var pending = 0
    /// The allowed range of the next continuation byte.
    private var low: UInt8 = 0x80, high: UInt8 = 0xBF
    /// Absolute offset of the current sequence's lead byte.
    private var leadOffset = 0

    /// Checks `bytes`, which start at absolute input offset `offset`, and counts their line feeds.
    /// - Complexity: O(bytes.count); eight ASCII bytes at a time, line ends and tabs included.
    mutating func validate(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) {
        guard let base = bytes.baseAddress else { return }
        let n = bytes.count
        guard invalid == nil else {
            lineFeeds += XMLByteSearch.lineFeeds(in: base, count: n)
            return
        }
        var i = 0
        while i < n {
            if pending == 0 {
                i = Self.skipPlainASCII(base, from: i, count: n, lineFeeds: &lineFeeds)
                if i == n { break }
            }
            if pending == 0, i + 8 <= n, let feeds = Self.plainASCIILineFeeds(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) {
                lineFeeds &+= feeds
                i += 8
                continue
            }
            // Byte by byte through these eight (a multi-byte character, a control byte).
            let stop = min(n, i + 8)
            while i < stop {
                check(base[i], at: offset + i)
                if invalid != nil {
                    lineFeeds += XMLByteSearch.lineFeeds(in: base + i, count: n - i)
                    return
                }
                if base[i] == 0x0A { lineFeeds &+= 1 }
                i += 1
            }
        }
    }

    /// The index of the first sixteen-byte block from `i` that is not all plain ASCII XML
    /// characters with no control byte but line feeds, or of the last fewer than sixteen bytes,
    /// counting the line feeds it passes: most of a GPX or OSM file, two words a step.
    @inline(__always)
    private static func skipPlainASCII(_ base: UnsafePointer<UInt8>, from i: Int, count n: Int, lineFeeds: inout Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs = ones &* 0x80, low = ones &* 0x60, feed = ones &* 0x0A
        var i = i
        while i + 16 <= n {
            let a = XMLByteSearch.word(base + i), b = XMLByteSearch.word(base + i + 8)
            guard (a | b) & highs == 0 else { return i }
            // The high bit of each byte below 0x20 (no carry: an ASCII byte + 0x60 ≤ 0xDF).
            let ca = ~(a &+ low) & highs, cb = ~(b &+ low) & highs
            if ca | cb != 0 {
                // Line feeds only? Their bytes are exactly the control bytes.
                guard ca == XMLByteSearch.zeroBytes(a ^ feed), cb == XMLByteSearch.zeroBytes(b ^ feed) else { return i }
                lineFeeds &+= XMLByteSearch.bytesSet(in: ca) &+ XMLByteSearch.bytesSet(in: cb)
            }
            i += 16
        }
        return i
    }

    /// The number of line feeds in eight bytes when they are all ASCII XML characters (no byte
    /// ≥ 0x80, and every byte below 0x20 a tab, line feed or carriage return); nil otherwise.
    /// Per-byte masks without carries between bytes (Anderson, "Bit Twiddling Hacks", bytes
    /// less than n / equal to n): for an ASCII byte b, b + 0x60 sets the high bit iff b ≥ 0x20,
    /// and b + 0x7F iff b ≠ 0.
    @inline(__always)
    private static func plainASCIILineFeeds(_ word: UInt64) -> Int? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs = ones &* 0x80
        guard word & highs == 0 else { return nil }
        let controls = ~(word &+ ones &* 0x60) & highs
        if controls == 0 { return 0 }
        func zeros(_ w: UInt64) -> UInt64 { ~(w &+ ones &* 0x7F) & highs }
        let feeds = zeros(word ^ (ones &* 0x0A))
        // The common case: the only control bytes are line feeds.
        if controls == feeds { return XMLByteSearch.bytesSet(in: feeds) }
        let allowed = feeds | zeros(word ^ (ones &* 0x09)) | zeros(word ^ (ones &* 0x0D))
        return controls & ~allowed == 0 ? XMLByteSearch.bytesSet(in: feeds) : nil
    }

    /// Takes one byte at absolute offset `at` through the UTF-8 and XML character rules.
    @inline(__always)
    private mutating func check(_ b: UInt8, at: Int) {
        if pending > 0 {
            guard b >= low && b <= high else {
                return fail("invalid UTF-8: byte 0x\(hex(b)) cannot continue the sequence that starts at byte offset \(leadOffset)", byte: b, at: at)
            }
            pending -= 1
            low = 0x80; high = 0xBF
        } else if b < 0x80 {
            if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D {
                fail(b == 0 ? "a NUL byte is not an XML character" : "control byte 0x\(hex(b)) is not an XML character", byte: b, at: at)
            }
        } else {
            leadOffset = at
            switch b {
            case 0xC2...0xDF: pending = 1
            case 0xE0: pending = 2; low = 0xA0
            case 0xED: pending = 2; high = 0x9F // no UTF-16 surrogates
            case 0xE1...0xEF: pending = 2
            case 0xF0: pending = 3; low = 0x90
            case 0xF4: pending = 3; high = 0x8F // nothing above U+10FFFF
            case 0xF1...0xF3: pending = 3
            default: fail("invalid UTF-8: byte 0x\(hex(b)) cannot start a character", byte: b, at: at)
            }
        }
    }

    private mutating func fail(_ message: String, byte: UInt8, at badOffset: Int) {
        // A zero byte in the first two, or FE / FF first (a UTF-16 byte-order mark): UTF-16 or UTF-32.
        let wide = (badOffset <= 1 && byte == 0) || (badOffset == 0 && byte >= 0xFE)
        invalid = Invalid(offset: badOffset, message: wide ? "UTF-16 or UTF-32 input is not supported; convert it to UTF-8" : message,
                          isWideEncoding: wide)
    }

    private func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "\(digits[Int(b >> 4)])\(digits[Int(b & 15)])"
    }
}
