import GeoBase
import GeoCore

/// Number reading for GPX decimal fields (XML Schema `xsd:decimal`, plus the exponent form
/// some writers use although the schema forbids it).
enum GPXNumber {
    /// Parses a decimal number with XML white space around it; nil when the text is not one
    /// or is not finite. The number syntax and its correctly rounded reading are
    /// `GeoBase.DecimalNumber`'s (the exponent form included).
    /// - Complexity: O(n) in the length of the text.
    @inline(__always)
    static func double(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var lo = 0, hi = count
        while lo < hi, isSpace(p[lo]) { lo += 1 }
        while hi > lo, isSpace(p[hi - 1]) { hi -= 1 }
        guard let v = DecimalNumber.parse(p + lo, count: hi - lo), v.isFinite else { return nil }
        return v
    }

    /// Parses a decimal integer (optional sign, white space around); nil otherwise.
    static func integer(_ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        var lo = 0, hi = count
        while lo < hi, isSpace(p[lo]) { lo += 1 }
        while hi > lo, isSpace(p[hi - 1]) { hi -= 1 }
        guard lo < hi else { return nil }
        return Int(String(decoding: UnsafeBufferPointer(start: p + lo, count: hi - lo), as: UTF8.self))
    }

    @inline(__always)
    private static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D }
}
