import Platform

/// Byte searches for the scanner's inner loops, eight bytes at a time in a `UInt64` (SWAR),
/// with no per-byte bounds checks: tokens in GPX and OSM XML are short, so a word-wide loop
/// beats a `memchr` call until a run is long, where `memchr`'s vector loop takes over.
enum XMLByteSearch {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of every byte of `word` that is zero, and no other bit: exact, since no
    /// carry crosses a byte ((b & 0x7F) + 0x7F ≤ 0xFE). Anderson, "Bit Twiddling Hacks",
    /// "Determine if a word has a zero byte".
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 {
        ~(((word & lows) &+ lows) | word | lows)
    }

    /// How many bytes of a mask from `zeroBytes` are set: the bytes' high bits moved to their
    /// low bits and summed into the top byte by one multiplication (the baseline x86-64 target
    /// has no population-count instruction; `nonzeroBitCount` is a dozen operations).
    @inline(__always)
    static func bytesSet(in mask: UInt64) -> Int {
        Int(truncatingIfNeeded: ((mask >> 7) &* ones) >> 56)
    }

    /// Eight bytes at `p` with `p[0]` in the low byte, on any byte order.
    @inline(__always)
    static func word(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// The index of the first `byte` in `p[from..<to]`, or `to` when there is none.
    @inline(__always)
    static func firstIndex(of byte: UInt8, in p: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int {
        let pattern = ones &* UInt64(byte)
        var i = from
        // Four words inline (text and values are mostly shorter), then memchr.
        var words = 0
        while i + 8 <= end, words < 4 {
            let hits = zeroBytes(word(p + i) ^ pattern)
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
            words += 1
        }
        if i + 8 <= end {
            guard let hit = memchr(p + i, Int32(byte), end - i) else { return end }
            return UnsafeRawPointer(p).distance(to: UnsafeRawPointer(hit))
        }
        while i < end, p[i] != byte { i += 1 }
        return i
    }

    /// The index of the first `a` or `b` in `p[from..<to]`, or `to` when there is none.
    @inline(__always)
    static func firstIndex(of a: UInt8, or b: UInt8, in p: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int {
        let pa = ones &* UInt64(a), pb = ones &* UInt64(b)
        var i = from
        while i + 8 <= end {
            let w = word(p + i)
            let hits = zeroBytes(w ^ pa) | zeroBytes(w ^ pb)
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < end, p[i] != a, p[i] != b { i += 1 }
        return i
    }

    /// The index of the first byte above 0x20 (past white space, which is all at or below it)
    /// in `p[from..<to]`, or `to` when there is none.
    @inline(__always)
    static func firstIndexAbove0x20(in p: UnsafePointer<UInt8>, from: Int, to end: Int) -> Int {
        var i = from
        while i + 8 <= end {
            // The high bit of each byte ≥ 0x21: (b & 0x7F) + 0x5F carries into it for the ASCII
            // ones, and b itself has it for the others; no carry crosses a byte.
            let w = word(p + i)
            let above = (((w & lows) &+ ones &* 0x5F) | w) & ~lows
            if above != 0 { return i + above.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < end, p[i] <= 0x20 { i += 1 }
        return i
    }

    /// How many line feeds `p[0..<count]` holds.
    /// - Complexity: O(count), a word at a time.
    static func lineFeeds(in p: UnsafePointer<UInt8>, count: Int) -> Int {
        let pattern = ones &* 0x0A
        var n = 0
        var i = 0
        while i + 8 <= count {
            n &+= bytesSet(in: zeroBytes(word(p + i) ^ pattern))
            i += 8
        }
        while i < count {
            if p[i] == 0x0A { n += 1 }
            i += 1
        }
        return n
    }

    /// The index of the last `byte` in `p[0..<before]`, nil when there is none; backwards a byte
    /// at a time (for the start of the current line, a short way back).
    static func lastIndex(of byte: UInt8, in p: UnsafePointer<UInt8>, before: Int) -> Int? {
        var i = before - 1
        while i >= 0 {
            if p[i] == byte { return i }
            i -= 1
        }
        return nil
    }
}
