import Platform
public import GeoBase

/// What format readers (GPX, OSM XML) use on the scanner's window: literal comparison,
/// attribute lookup, text decoding and number parsing without copying.
extension XMLScanner {
    /// Whether a byte range of the window equals an ASCII literal.
    @inlinable @inline(__always)
    public func equals(_ r: Range<Int>, _ literal: StaticString) -> Bool {
        let n = r.count
        guard n == literal.utf8CodeUnitCount else { return false }
        let a = buf + r.lowerBound, b = literal.utf8Start
        var i = 0
        while i < n { if a[i] != b[i] { return false }; i += 1 }
        return true
    }

    /// The name and value ranges of the `i`th attribute of the current start tag.
    @inlinable public func attribute(at i: Int) -> (name: Range<Int>, value: Range<Int>) {
        let a = attributeSlots[i]
        return ((tokenStart + a.nameLo)..<(tokenStart + a.nameHi), (tokenStart + a.valueLo)..<(tokenStart + a.valueHi))
    }

    /// The value range of the attribute with the given full name in the current start tag.
    @inlinable public func attribute(_ name: StaticString) -> Range<Int>? {
        for i in 0..<attributeCount {
            let a = attributeSlots[i]
            guard equals((tokenStart + a.nameLo)..<(tokenStart + a.nameHi), name) else { continue }
            return (tokenStart + a.valueLo)..<(tokenStart + a.valueHi)
        }
        return nil
    }

    /// Whether the text range holds only XML white space.
    public func isBlank(_ r: Range<Int>) -> Bool {
        for i in r where !isSpace(buf[i]) { return false }
        return true
    }

    /// Appends the bytes of `r` to `out`, replacing entity and character references
    /// (XML 1.0 §4.1, §4.6) and normalising line ends to LF (§2.11); with `normalizeSpace`
    /// (attribute values, §3.3.3) tabs and line breaks become spaces.
    /// - Throws: `.malformed` for an unknown or unterminated reference.
    public func appendDecoded(_ r: Range<Int>, to out: inout XMLByteBuffer, normalizeSpace: Bool = false) throws(XMLError) {
        var i = r.lowerBound
        let hi = r.upperBound
        // Fast path: nothing to replace (no '&' or CR, and with `normalizeSpace` no LF or tab;
        // found a word at a time), copy the bytes at once.
        var plain = XMLByteSearch.firstIndex(of: 0x26, or: 0x0D, in: buf, from: i, to: hi) == hi
        if plain, normalizeSpace { plain = XMLByteSearch.firstIndex(of: 0x0A, or: 0x09, in: buf, from: i, to: hi) == hi }
        if plain {
            out.append(buf + i, count: hi - i)
            return
        }
        while i < hi {
            var c = buf[i]
            if c != 0x26 {
                // Line ends: CR LF and a lone CR read as LF (XML 1.0 §2.11).
                if c == 0x0D {
                    if i + 1 < hi, buf[i + 1] == 0x0A { i += 1; continue }
                    c = 0x0A
                }
                if normalizeSpace, c == 0x09 || c == 0x0A { out.append(0x20) } else { out.append(c) }
                i += 1
                continue
            }
            var j = i + 1
            while j < hi, buf[j] != 0x3B, j - i < 12 { j += 1 }
            guard j < hi, buf[j] == 0x3B else { throw malformed("unterminated entity reference", at: i) }
            let ref = (i + 1)..<j
            if equals(ref, "lt") { out.append(0x3C) }
            else if equals(ref, "gt") { out.append(0x3E) }
            else if equals(ref, "amp") { out.append(0x26) }
            else if equals(ref, "quot") { out.append(0x22) }
            else if equals(ref, "apos") { out.append(0x27) }
            else if ref.count >= 2, buf[ref.lowerBound] == 0x23 { // '#'
                var value: UInt32 = 0
                var k = ref.lowerBound + 1
                let hex = buf[k] == 0x78
                if hex { k += 1 }
                guard k < ref.upperBound else { throw malformed("empty character reference", at: i) }
                while k < ref.upperBound {
                    let d = buf[k]
                    let digit: UInt32
                    if d >= 0x30 && d <= 0x39 { digit = UInt32(d - 0x30) }
                    else if hex, d | 0x20 >= 0x61, d | 0x20 <= 0x66 { digit = UInt32(d | 0x20) - 0x61 + 10 }
                    else { throw malformed("bad character reference", at: i) }
                    value = value * (hex ? 16 : 10) + digit
                    k += 1
                }
                guard let scalar = Unicode.Scalar(value), value != 0 else { throw malformed("character reference to an invalid code point", at: i) }
                out.append(contentsOf: String(Character(scalar)).utf8)
            } else {
                throw malformed("unknown entity '&\(string(ref));'", at: i)
            }
            i = j + 1
        }
    }
}
